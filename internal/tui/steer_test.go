package tui

import (
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// Enter while a turn runs sends the message into that turn at once (the engine adds it to
// the turn's next request); it waits above the composer until the engine records it.
// Tab queues a message for after the turn.
func TestSteerMidTurnAndTabQueues(t *testing.T) {
	h := newHarness(t, "")
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("run the tests")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.UserMessageEvent{Message: "run the tests"})

	h.typeText("use the race detector")
	if !strings.Contains(h.screen(), "tab to queue message") {
		t.Errorf("no queue hint while typing during a turn:\n%s", h.screen())
	}
	h.key(keyEnter)
	checkOps(t, h, userInput("use the race detector"))
	h.typeText("then write a summary")
	h.key(tea.Key{Code: tea.KeyTab})
	checkOps(t, h, nil)
	h.golden("steer_pending")

	// Shift+Left takes the last queued message back to edit; Tab queues it again.
	h.key(tea.Key{Code: tea.KeyLeft, Mod: tea.ModShift})
	if got := h.m.input.Value(); got != "then write a summary" || len(h.m.queued) != 0 {
		t.Fatalf("composer %q, queued %q", got, h.m.queued)
	}
	h.key(tea.Key{Code: tea.KeyTab})

	h.event(protocol.UserMessageEvent{Message: "use the race detector"})
	scr := h.screen()
	if strings.Contains(scr, "Messages to be submitted after next tool call") || !strings.Contains(scr, "› use the race detector") {
		t.Errorf("the recorded steer is not in the transcript:\n%s", scr)
	}
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})
	checkOps(t, h, userInput("then write a summary"))
}

// Esc with a steer still waiting: the engine drops input it had not taken, so the UI
// sends it as the next message.
func TestSteerResentAfterInterrupt(t *testing.T) {
	h := newHarness(t, "")
	h.typeText("long job")
	h.key(keyEnter)
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.typeText("stop and do this")
	h.key(keyEnter)
	h.eng.takeOps()
	h.key(tea.Key{Code: tea.KeyEscape})
	checkOps(t, h, []protocol.Op{protocol.InterruptOp{}})
	h.event(protocol.TurnAbortedEvent{TurnID: "t1", Reason: protocol.AbortInterrupted})
	checkOps(t, h, userInput("stop and do this"))
}
