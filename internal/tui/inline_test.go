package tui

import (
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/charmbracelet/x/ansi"

	"github.com/gocodex/gocodex/protocol"
)

// newInlineHarness is a harness in the default (inline) mode, recording what goes to the
// terminal's scrollback.
func newInlineHarness(t *testing.T, w, ht int) (*harness, *[]string) {
	h := newHarness(t, "")
	var printed []string
	h.m.inline = true
	h.m.scrollback = func(s string) { printed = append(printed, ansi.Strip(s)) }
	h.resize(w, ht)
	return h, &printed
}

// Finished cells are written to the scrollback once, in order; the frame holds only what is
// still changing and the composer.
func TestInlineModeWritesFinishedCellsOnce(t *testing.T) {
	h, printed := newInlineHarness(t, 80, 24)
	if len(*printed) != 1 || !strings.Contains((*printed)[0], ">_ gocodex (v0.1.0)") {
		t.Fatalf("the header was not written first: %q", *printed)
	}
	h.typeText("run it")
	h.key(keyEnter)
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.ExecCommandBeginEvent{CallID: "c1", Command: []string{"make"}})
	h.event(protocol.WarningEvent{Message: "after the command"})
	h.event(protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Chunk: []byte("building\n")})
	frame := h.screenInline()
	if !strings.Contains(frame, "• Running make") || !strings.Contains(frame, "after the command") {
		t.Errorf("the live area lacks the running command:\n%s", frame)
	}
	if got := strings.Join(*printed, ""); !strings.Contains(got, "› run it") || strings.Contains(got, "after the command") {
		t.Errorf("scrollback out of order: %q", got)
	}
	h.golden("inline_command_running")
	h.event(protocol.ExecCommandEndEvent{CallID: "c1", Command: []string{"make"}, AggregatedOutput: "building\n"})
	h.event(protocol.AgentMessageDeltaEvent{Delta: "Built"})
	all := strings.Join(*printed, "")
	if !strings.Contains(all, "✔ Ran make (exit 0)") || !strings.Contains(all, "after the command") {
		t.Errorf("finished cells not written: %q", all)
	}
	if strings.Contains(h.screenInline(), "Ran make") {
		t.Error("a written cell is still drawn")
	}
	h.golden("inline_streaming")
	h.event(protocol.AgentMessageEvent{Message: "Built."})
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})
	if n := strings.Count(strings.Join(*printed, ""), "Built."); n != 1 {
		t.Errorf("the answer was written %d times", n)
	}
	// The pager shows everything, on the alternate screen.
	h.key(tea.Key{Code: 't', Mod: tea.ModCtrl})
	v := h.m.View()
	if !v.AltScreen || !strings.Contains(ansi.Strip(v.Content), "› run it") || !strings.Contains(ansi.Strip(v.Content), "Built.") {
		t.Errorf("pager:\n%s", ansi.Strip(v.Content))
	}
	h.key(runeKey('q'))
	if h.m.pager != nil || h.m.View().AltScreen {
		t.Error("q did not close the pager")
	}
}

// screenInline is the inline frame as text (its height varies).
func (h *harness) screenInline() string {
	lines := strings.Split(ansi.Strip(h.m.View().Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Scrollback text is written one piece at a time, in order, and the program ends only once
// everything is written.
func TestInlinePrintsInOrderBeforeQuitting(t *testing.T) {
	h := newHarness(t, "")
	h.m.inline = true
	var printed []string
	h.m.print = func(s string) { printed = append(printed, ansi.Strip(s)) }
	first := h.send(eventMsg{ev: protocol.Event{Msg: protocol.WarningEvent{Message: "one"}}}) // header + "one" in flight
	h.send(eventMsg{ev: protocol.Event{Msg: protocol.WarningEvent{Message: "two"}}})
	h.send(eventMsg{ev: protocol.Event{Msg: protocol.ShutdownCompleteEvent{}}}) // asks to quit
	if first == nil {
		t.Fatal("nothing was printed")
	}
	msg := runUntilPrinted(first)
	if len(printed) != 1 || !strings.Contains(printed[0], "one") || strings.Contains(printed[0], "two") {
		t.Fatalf("first write %q", printed)
	}
	next := h.send(msg) // the write is done: the next one starts
	msg = runUntilPrinted(next)
	if len(printed) != 2 || !strings.Contains(printed[1], "two") {
		t.Fatalf("second write %q", printed)
	}
	if !isQuitIn(h.send(msg)) {
		t.Error("the program did not end once everything was written")
	}
}

// runUntilPrinted runs cmd (a batch included) and returns the printedMsg it produced.
func runUntilPrinted(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			if m := runUntilPrinted(c); m != nil {
				return m
			}
		}
	case printedMsg:
		return msg
	}
	return nil
}

func isQuitIn(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if isQuitIn(c) {
				return true
			}
		}
	}
	return false
}
