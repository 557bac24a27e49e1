package tui

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden views under testdata/")

// A program killed after a panic (TestPanicRestoresTerminal) leaves bubbletea's input
// reader and a cursor blink behind: the process is about to end, so bubbletea does not
// wait for them. Those are the only goroutines let through.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/muesli/cancelreader.(*epollCancelReader).wait"),
		goleak.IgnoreAnyFunction("github.com/charmbracelet/ultraviolet.(*TerminalReader).StreamEvents"),
		goleak.IgnoreAnyFunction("github.com/gocodex/gocodex/third_party/bubbles/cursor.(*Model).Blink.func1"),
		// chroma's regular expressions carry a match timeout, kept by regexp2's clock
		// goroutine; it ends by itself about a second after the last highlighted block.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

// fakeEngine records submitted ops and serves events from a channel.
type fakeEngine struct {
	mu     sync.Mutex
	ops    []protocol.Op
	events chan protocol.Event
	// onSubmit, when set, answers an op (the Run test uses it to complete a shutdown).
	onSubmit func(protocol.Op)
}

func newFakeEngine() *fakeEngine { return &fakeEngine{events: make(chan protocol.Event, 64)} }

func (f *fakeEngine) Submit(op protocol.Op) (string, error) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	cb := f.onSubmit
	f.mu.Unlock()
	if cb != nil {
		cb(op)
	}
	return "sub", nil
}

func (f *fakeEngine) NextEvent(ctx context.Context) (protocol.Event, error) {
	select {
	case ev, ok := <-f.events:
		if !ok {
			return protocol.Event{}, agent.ErrThreadClosed
		}
		return ev, nil
	case <-ctx.Done():
		return protocol.Event{}, ctx.Err()
	}
}

// takeOps returns and forgets the ops submitted so far.
func (f *fakeEngine) takeOps() []protocol.Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	ops := f.ops
	f.ops = nil
	return ops
}

// harness drives a Model the way the program would, without a terminal.
type harness struct {
	t   *testing.T
	eng *fakeEngine
	m   *Model
}

func newHarness(t *testing.T, prompt string) *harness {
	t.Helper()
	eng := newFakeEngine()
	m := NewModel(eng, Header{Version: "0.1.0", Model: "gpt-test", Cwd: "/work/project", Approval: "on-request", Sandbox: "workspace-write"}, prompt)
	h := &harness{t: t, eng: eng, m: m}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 32})
	return h
}

// send runs one message through Update and returns the command it produced.
func (h *harness) send(msg tea.Msg) tea.Cmd {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	return cmd
}

func (h *harness) event(msg protocol.EventMsg) tea.Cmd {
	return h.send(eventMsg{ev: protocol.Event{ID: "1", Msg: msg}})
}

func (h *harness) key(k tea.Key) tea.Cmd { return h.send(tea.KeyPressMsg(k)) }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.key(tea.Key{Code: r, Text: string(r)})
	}
}

var (
	keyEnter      = tea.Key{Code: tea.KeyEnter}
	keyShiftEnter = tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}
	keyCtrlJ      = tea.Key{Code: 'j', Mod: tea.ModCtrl}
	keyEsc        = tea.Key{Code: tea.KeyEscape}
	keyCtrlC      = tea.Key{Code: 'c', Mod: tea.ModCtrl}
)

func runeKey(r rune) tea.Key { return tea.Key{Code: r, Text: string(r)} }

// screen is the view as plain text, without styles or trailing blanks.
func (h *harness) screen() string {
	lines := strings.Split(ansi.Strip(h.m.View().Content), "\n")
	if !h.m.inline && len(lines) != h.m.height {
		h.t.Errorf("the view has %d lines on a %d-line terminal", len(lines), h.m.height)
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// golden compares the screen with testdata/<name>.golden.
func (h *harness) golden(name string) {
	h.t.Helper()
	got := h.screen()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		h.t.Errorf("screen %s differs (-want +got):\n%s", name, diff)
	}
}

func userInput(text string) []protocol.Op {
	return []protocol.Op{
		protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(text)}},
		protocol.AddToHistoryOp{Text: text},
	}
}

func checkOps(t *testing.T, h *harness, want []protocol.Op) {
	t.Helper()
	if diff := cmp.Diff(want, h.eng.takeOps()); diff != "" {
		t.Errorf("submitted ops (-want +got):\n%s", diff)
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestStreamingConversation(t *testing.T) {
	h := newHarness(t, "")
	h.golden("empty")
	h.typeText("say hello")
	h.key(keyEnter)
	checkOps(t, h, userInput("say hello"))
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.AgentReasoningEvent{Text: "**Greeting** the person politely"})
	h.event(protocol.AgentMessageDeltaEvent{Delta: "Hello"})
	h.event(protocol.AgentMessageDeltaEvent{Delta: ", wor"})
	h.golden("streaming")
	h.event(protocol.AgentMessageDeltaEvent{Delta: "ld!"})
	h.event(protocol.AgentMessageEvent{Message: "Hello, world!"})
	h.event(protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: protocol.TokenUsage{
		InputTokens: 1200, CachedInputTokens: 200, OutputTokens: 34, ReasoningOutputTokens: 8, TotalTokens: 1234}}})
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})
	h.golden("turn_complete")
	checkOps(t, h, nil)
}

func TestInitialPromptAndMultilineInput(t *testing.T) {
	h := newHarness(t, "fix the bug")
	cmd := h.m.Init()
	if cmd == nil {
		t.Fatal("Init with a prompt returned no command")
	}
	h.send(cmd())
	checkOps(t, h, userInput("fix the bug"))
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})

	h.typeText("one")
	h.key(keyShiftEnter)
	h.typeText("two")
	h.key(keyCtrlJ)
	h.typeText("three")
	h.key(keyEnter)
	checkOps(t, h, userInput("one\ntwo\nthree"))

	// Queued with Tab while the turn runs, sent when it ends.
	h.typeText("next")
	h.key(tea.Key{Code: tea.KeyTab})
	checkOps(t, h, nil)
	h.event(protocol.TurnCompleteEvent{TurnID: "t2"})
	checkOps(t, h, userInput("next"))
	if NewModel(newFakeEngine(), Header{}, "  ").Init() != nil {
		t.Error("a blank prompt must not be sent")
	}
}

func TestCommandsPatchesPlanAndWarnings(t *testing.T) {
	h := newHarness(t, "")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 60})
	h.typeText("run the tests")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	argv := []string{"bash", "-lc", "go test ./..."}
	h.event(protocol.ExecCommandBeginEvent{CallID: "c1", TurnID: "t1", Command: argv, Cwd: "/work/project"})
	h.event(protocol.ExecCommandOutputDeltaEvent{CallID: "c1", Stream: protocol.ExecOutputStream("stdout"), Chunk: []byte("ok  \tpkg/a\n")})
	h.golden("command_running")
	h.event(protocol.ExecCommandEndEvent{CallID: "c1", TurnID: "t1", Command: argv, ExitCode: 0,
		AggregatedOutput: "ok  \tpkg/a\nok  \tpkg/b\n"})
	h.event(protocol.ExecCommandBeginEvent{CallID: "c2", TurnID: "t1", Command: []string{"false"}})
	h.event(protocol.ExecCommandEndEvent{CallID: "c2", TurnID: "t1", Command: []string{"false"}, ExitCode: 1,
		AggregatedOutput: "1\n2\n3\n4\n5\n6\n7\n"})
	changes := map[string]protocol.FileChange{
		"b.go": {Kind: protocol.FileUpdate, UnifiedDiff: "@@\n-x\n+y\n"},
		"a.go": {Kind: protocol.FileAdd, Content: "package a\n"},
	}
	h.event(protocol.PatchApplyBeginEvent{CallID: "p1", TurnID: "t1", AutoApproved: true, Changes: changes})
	h.event(protocol.PatchApplyEndEvent{CallID: "p1", TurnID: "t1", Success: true, Changes: changes})
	expl := "Fix then verify"
	h.event(protocol.PlanUpdateEvent{Explanation: &expl, Plan: []protocol.PlanItem{
		{Step: "Fix the bug", Status: protocol.PlanCompleted},
		{Step: "Run tests", Status: protocol.PlanInProgress},
		{Step: "Report", Status: protocol.PlanPending},
	}})
	h.event(protocol.WarningEvent{Message: "low disk space"})
	h.event(protocol.ErrorEvent{Message: "stream disconnected"})
	h.event(protocol.TurnCompleteEvent{TurnID: "t1"})
	h.golden("tools")
}

func TestApprovals(t *testing.T) {
	reason := "needs network"
	execReq := protocol.ExecApprovalRequestEvent{CallID: "c1", TurnID: "t1", Command: []string{"curl", "https://example.com"}, Cwd: "/work/project", Reason: &reason}
	patchReq := protocol.ApplyPatchApprovalRequestEvent{CallID: "p1", TurnID: "t1", Changes: map[string]protocol.FileChange{
		"README.md": {Kind: protocol.FileUpdate, UnifiedDiff: "@@\n-a\n+b\n"},
	}}
	tests := []struct {
		key  tea.Key
		want protocol.ReviewDecisionKind
	}{
		{runeKey('y'), protocol.DecisionApproved},
		{runeKey('a'), protocol.DecisionApprovedForSession},
		{runeKey('n'), protocol.DecisionDenied},
		{keyEsc, protocol.DecisionAbort},
	}
	for _, tc := range tests {
		t.Run(string(tc.want), func(t *testing.T) {
			h := newHarness(t, "")
			h.typeText("fetch it")
			h.key(keyEnter)
			h.eng.takeOps()
			h.event(protocol.TurnStartedEvent{TurnID: "t1"})
			h.event(execReq)
			h.event(patchReq)
			if tc.want == protocol.DecisionApproved {
				h.golden("approval_exec")
			}
			h.key(runeKey('x')) // not an answer: nothing happens
			checkOps(t, h, nil)
			h.key(tc.key)
			h.key(tc.key)
			checkOps(t, h, []protocol.Op{
				protocol.ExecApprovalOp{ID: "c1", TurnID: "t1", Decision: protocol.ReviewDecision{Kind: tc.want}},
				protocol.PatchApprovalOp{ID: "p1", Decision: protocol.ReviewDecision{Kind: tc.want}},
			})
			if tc.want == protocol.DecisionApproved {
				h.golden("approval_answered")
			}
			// With the modal gone, keys reach the composer again.
			h.typeText("ok")
			if got := h.m.input.Value(); got != "ok" {
				t.Errorf("composer = %q, want %q", got, "ok")
			}
		})
	}
}

func TestPatchApprovalModal(t *testing.T) {
	h := newHarness(t, "")
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	grant := "needs write access"
	h.event(protocol.ApplyPatchApprovalRequestEvent{CallID: "p1", TurnID: "t1", Reason: &grant, Changes: map[string]protocol.FileChange{
		"docs/old.md": {Kind: protocol.FileDelete},
		"main.go":     {Kind: protocol.FileUpdate, UnifiedDiff: "@@\n-a\n+b\n"},
		"new.go":      {Kind: protocol.FileAdd, Content: "package main\n"},
	}})
	h.golden("approval_patch")
}

func TestInterrupt(t *testing.T) {
	h := newHarness(t, "")
	h.key(keyEsc) // idle: nothing to interrupt
	checkOps(t, h, nil)
	h.typeText("long task")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.ExecCommandBeginEvent{CallID: "c1", TurnID: "t1", Command: []string{"sleep", "100"}})
	h.key(keyEsc)
	checkOps(t, h, []protocol.Op{protocol.InterruptOp{}})
	h.event(protocol.TurnAbortedEvent{TurnID: "t1", Reason: protocol.AbortInterrupted})
	h.golden("interrupted")
}

func TestQuit(t *testing.T) {
	h := newHarness(t, "")
	h.typeText("draft")
	if cmd := h.key(keyCtrlC); isQuit(cmd) {
		t.Fatal("the first Ctrl+C quit")
	}
	checkOps(t, h, nil)
	if h.m.input.Value() != "" {
		t.Errorf("the first Ctrl+C left the composer as %q", h.m.input.Value())
	}
	h.golden("quit_armed")
	// Another key disarms.
	h.key(runeKey('z'))
	h.key(keyCtrlC)
	if cmd := h.key(keyCtrlC); isQuit(cmd) {
		t.Fatal("quit before shutdown_complete")
	}
	checkOps(t, h, []protocol.Op{protocol.ShutdownOp{}})
	if cmd := h.event(protocol.ShutdownCompleteEvent{}); !isQuit(cmd) {
		t.Error("shutdown_complete did not quit")
	}
}

func TestQuitWhileRunningInterruptsFirst(t *testing.T) {
	h := newHarness(t, "")
	h.typeText("work")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.key(keyCtrlC)
	h.key(keyCtrlC)
	checkOps(t, h, []protocol.Op{protocol.InterruptOp{}, protocol.ShutdownOp{}})
	// A third press gives up waiting for the engine.
	if !isQuit(h.key(keyCtrlC)) {
		t.Error("the third Ctrl+C did not quit")
	}
}

func TestEngineClosed(t *testing.T) {
	h := newHarness(t, "")
	boom := errors.New("boom")
	if !isQuit(h.send(engineClosedMsg{err: boom})) {
		t.Fatal("a closed engine did not end the program")
	}
	if !errors.Is(h.m.err, boom) {
		t.Errorf("Err = %v, want boom", h.m.err)
	}
}

// BenchmarkStreamingDelta measures one agent_message_delta arriving in a long session: the
// cost that decides whether a fast stream keeps up.
func BenchmarkStreamingDelta(b *testing.B) {
	eng := newFakeEngine()
	m := NewModel(eng, Header{Model: "m"}, "")
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	for i := range 500 {
		m.Update(eventMsg{ev: protocol.Event{Msg: protocol.AgentMessageEvent{Message: strings.Repeat("history line ", 20) + string(rune('a'+i%26))}}})
	}
	m.Update(eventMsg{ev: protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t"}}})
	delta := eventMsg{ev: protocol.Event{Msg: protocol.AgentMessageDeltaEvent{Delta: "word "}}}
	b.ResetTimer()
	for range b.N {
		m.Update(delta)
		_ = m.View()
	}
}

func TestMcpSearchImageAndFailures(t *testing.T) {
	h := newHarness(t, "")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 44})
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	inv := protocol.McpInvocation{Server: "docs", Tool: "lookup", Arguments: []byte(`{"q": "bubbletea"}`)}
	h.event(protocol.McpToolCallBeginEvent{CallID: "m1", Invocation: inv})
	h.event(protocol.McpToolCallEndEvent{CallID: "m1", Invocation: inv, Result: protocol.McpToolResult{
		Ok: []byte(`{"content":[{"type":"text","text":"found 3 pages"},{"type":"image","data":"x"}]}`)}})
	failure := "server not running"
	h.event(protocol.McpToolCallBeginEvent{CallID: "m2", Invocation: inv})
	h.event(protocol.McpToolCallEndEvent{CallID: "m2", Invocation: inv, Result: protocol.McpToolResult{Err: &failure}})
	h.event(protocol.WebSearchBeginEvent{CallID: "w1"})
	h.event(protocol.WebSearchEndEvent{CallID: "w1", Query: "go 1.26 release notes"})
	h.event(protocol.ViewImageToolCallEvent{CallID: "v1", Path: "/work/project/shot.png"})
	h.event(protocol.ExecCommandEndEvent{CallID: "c9", Command: []string{"rm", "-rf", "build dir"}, Status: protocol.ExecDeclined})
	h.event(protocol.PatchApplyBeginEvent{CallID: "p1", Changes: map[string]protocol.FileChange{"x.go": {Kind: protocol.FileUpdate}}})
	h.event(protocol.PatchApplyEndEvent{CallID: "p1", Stderr: "context not found", Changes: map[string]protocol.FileChange{"x.go": {Kind: protocol.FileUpdate}}})
	h.event(protocol.AgentReasoningDeltaEvent{Delta: "thinking "})
	h.event(protocol.AgentReasoningDeltaEvent{Delta: "hard"})
	h.event(protocol.AgentReasoningSectionBreakEvent{})
	h.event(protocol.StreamErrorEvent{Message: "Reconnecting... 1/5"})
	h.event(protocol.TurnCompleteEvent{TurnID: "t1", Error: &protocol.TurnError{Message: "unexpected status 500"}})
	h.golden("more_tools")
}

func TestHistoryRecall(t *testing.T) {
	h := newHarness(t, "")
	for _, msg := range []string{"first", "second"} {
		h.typeText(msg)
		h.key(keyEnter)
		h.event(protocol.TurnCompleteEvent{})
	}
	up, down := tea.Key{Code: tea.KeyUp}, tea.Key{Code: tea.KeyDown}
	steps := []struct {
		key  tea.Key
		want string
	}{
		{up, "second"}, {up, "first"}, {up, "first"}, {down, "second"}, {down, ""}, {down, ""}, {up, "second"},
	}
	for i, st := range steps {
		h.key(st.key)
		if got := h.m.input.Value(); got != st.want {
			t.Fatalf("step %d: composer = %q, want %q", i, got, st.want)
		}
	}
	// Editing a recalled message stops the recall: Up moves inside the text again.
	h.typeText("!")
	h.key(up)
	if got := h.m.input.Value(); got != "second!" {
		t.Errorf("composer = %q after editing, want %q", got, "second!")
	}
}

func TestSessionConfiguredUpdatesHeader(t *testing.T) {
	h := newHarness(t, "")
	never := protocol.ApprovalNever
	h.event(protocol.SessionConfiguredEvent{Model: "gpt-engine", Cwd: "/elsewhere", ApprovalPolicy: &never,
		SandboxPolicy: &protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}})
	want := Header{Version: "0.1.0", Model: "gpt-engine", Cwd: "/elsewhere", Approval: "never", Sandbox: "read-only"}
	if diff := cmp.Diff(want, h.m.header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
