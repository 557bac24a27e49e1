package agent

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// fakeHooks answers each event with a scripted outcome and remembers what it was asked.
type fakeHooks struct {
	mu       sync.Mutex
	inputs   []HookInput
	outcomes map[HookEvent]HookOutcome
}

func (f *fakeHooks) Run(ctx context.Context, in HookInput, emit func(protocol.EventMsg)) HookOutcome {
	f.mu.Lock()
	f.inputs = append(f.inputs, in)
	out := f.outcomes[in.Event]
	f.mu.Unlock()
	run := protocol.HookRunSummary{ID: string(in.Event) + ":0:fake", EventName: string(in.Event), Status: protocol.HookRunning}
	emit(protocol.HookStartedEvent{TurnID: &in.TurnID, Run: run})
	run.Status = protocol.HookCompleted
	if out.Blocked {
		run.Status = protocol.HookBlocked
	}
	emit(protocol.HookCompletedEvent{TurnID: &in.TurnID, Run: run})
	return out
}

func (f *fakeHooks) events() []HookEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []HookEvent
	for _, in := range f.inputs {
		out = append(out, in.Event)
	}
	return out
}

func (f *fakeHooks) input(ev HookEvent) HookInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, in := range f.inputs {
		if in.Event == ev {
			return in
		}
	}
	return HookInput{}
}

func hooksHarness(t *testing.T, f *fakeHooks, handlers map[string]tool.Handler) *harness {
	return newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.Hooks = f
		c.RolloutPath = "/codex/sessions/rollout.jsonl"
		c.ToolHandlers = handlers
	}})
}

// The context a SessionStart hook adds comes after the environment and before the prompt;
// UserPromptSubmit's right after the prompt; both stay for the next turn.
func TestHooksAddContextWhereCodexDoes(t *testing.T) {
	f := &fakeHooks{outcomes: map[HookEvent]HookOutcome{
		HookSessionStart:     {Context: []string{"from session start"}},
		HookUserPromptSubmit: {Context: []string{"from prompt submit"}},
	}}
	h := hooksHarness(t, f, nil)
	h.srv.Enqueue(answer("m1", "one", 10), answer("m2", "two", 10))
	h.say("first")
	evs := h.until(turnEnd)
	h.say("second")
	h.until(turnEnd)
	want := []string{"user: <environment_context>", "developer: from session start", "user: first", "developer: from prompt submit",
		"assistant: one", "user: second", "developer: from prompt submit"}
	got := summarize(h.requestInput(1))
	if diff := cmp.Diff(want, got[len(got)-len(want):]); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]HookEvent{HookSessionStart, HookUserPromptSubmit, HookStop, HookUserPromptSubmit, HookStop}, f.events()); diff != "" {
		t.Errorf("hooks run (-want +got):\n%s", diff)
	}
	in := f.input(HookSessionStart)
	if in.Source != "startup" || in.SessionID != h.thread.ID() || in.TranscriptPath != "/codex/sessions/rollout.jsonl" || in.PermissionMode != "bypassPermissions" || in.Model != "test-model" {
		t.Errorf("session start input: %+v", in)
	}
	if p := f.input(HookUserPromptSubmit).Prompt; p != "first" {
		t.Errorf("prompt = %q", p)
	}
	if s := f.input(HookStop); s.LastAssistantMessage == nil || *s.LastAssistantMessage != "one" || s.StopHookActive {
		t.Errorf("stop input: %+v", s)
	}
	var hookEvents int
	for _, e := range evs {
		switch e.Msg.(type) {
		case protocol.HookStartedEvent, protocol.HookCompletedEvent:
			hookEvents++
		}
	}
	if hookEvents != 6 {
		t.Errorf("first turn has %d hook events, want 6: %v", hookEvents, types(evs))
	}
}

// A blocked prompt never reaches the model and the turn ends.
func TestHooksBlockedPromptDoesNotReachTheModel(t *testing.T) {
	f := &fakeHooks{outcomes: map[HookEvent]HookOutcome{HookUserPromptSubmit: {Blocked: true, Reason: "not today"}}}
	h := hooksHarness(t, f, nil)
	h.say("secret plans")
	evs := h.until(turnEnd)
	if _, ok := find[protocol.TurnCompleteEvent](evs); !ok {
		t.Fatalf("turn did not complete: %v", types(evs))
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d model requests after a blocked prompt", n)
	}
	var blocked bool
	for _, e := range evs {
		if c, ok := e.Msg.(protocol.HookCompletedEvent); ok && c.Run.EventName == string(HookUserPromptSubmit) {
			blocked = c.Run.Status == protocol.HookBlocked
		}
	}
	if !blocked {
		t.Errorf("no blocked UserPromptSubmit hook_completed: %v", types(evs))
	}
}

// A PreToolUse deny answers the call with the reason; the command never runs. PostToolUse
// context follows the call's output.
func TestHooksPreToolUseDenyAndPostToolUseContext(t *testing.T) {
	var ran atomic.Int32
	shell := fakeTool{name: tools.NameShell, handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		ran.Add(1)
		return tool.Result{Output: "ran", Success: true}, nil
	}}
	f := &fakeHooks{outcomes: map[HookEvent]HookOutcome{HookPreToolUse: {Blocked: true, Reason: "no rm"}}}
	h := hooksHarness(t, f, map[string]tool.Handler{tools.NameShell: shell})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("call_1", "shell", `{"command":["bash","-lc","rm -rf /tmp/x"]}`), testkit.Completed(testkit.Usage{Total: 5})),
		answer("m1", "ok", 10))
	h.say("clean up")
	h.until(turnEnd)
	if ran.Load() != 0 {
		t.Errorf("the denied command ran")
	}
	got := summarize(h.requestInput(1))
	want := "function_call_output call_1: Command blocked by PreToolUse hook: no rm. Command: rm -rf /tmp/x"
	if got[len(got)-1] != want {
		t.Errorf("last item %q, want %q", got[len(got)-1], want)
	}
	in := f.input(HookPreToolUse)
	if in.ToolName != "Bash" || string(in.ToolInput) != `{"command":"rm -rf /tmp/x"}` || in.ToolUseID != "call_1" || in.TurnID == "" {
		t.Errorf("pre tool use input: %+v", in)
	}

	// Allowed now: the command runs, PostToolUse sees it and adds context, recorded (as in
	// Codex) before the output.
	f.mu.Lock()
	f.outcomes = map[HookEvent]HookOutcome{HookPostToolUse: {Context: []string{"checked"}}}
	f.mu.Unlock()
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("call_2", "shell", `{"command":["bash","-lc","ls"]}`), testkit.Completed(testkit.Usage{Total: 5})),
		answer("m2", "ok", 10))
	h.say("list")
	h.until(turnEnd)
	if ran.Load() != 1 {
		t.Errorf("the allowed command ran %d times", ran.Load())
	}
	got = summarize(h.requestInput(3))
	if diff := cmp.Diff([]string{"function_call shell call_2", "developer: checked", "function_call_output call_2: ran"}, got[len(got)-3:]); diff != "" {
		t.Errorf("after the call (-want +got):\n%s", diff)
	}
	if in := f.input(HookPostToolUse); in.ToolUseID != "call_2" {
		t.Errorf("post tool use input: %+v", in)
	}

	// A PostToolUse block replaces the output the model gets with the reason.
	f.mu.Lock()
	f.outcomes = map[HookEvent]HookOutcome{HookPostToolUse: {Blocked: true, Reason: "output looks wrong"}}
	f.mu.Unlock()
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("call_3", "shell", `{"command":["bash","-lc","ls"]}`), testkit.Completed(testkit.Usage{Total: 5})),
		answer("m3", "ok", 10))
	h.say("list again")
	h.until(turnEnd)
	got = summarize(h.requestInput(5))
	if want := "function_call_output call_3: output looks wrong"; got[len(got)-1] != want {
		t.Errorf("last item %q, want %q", got[len(got)-1], want)
	}
}

// A Stop hook that blocks keeps the turn going once, with its reason as a hook prompt.
func TestHooksStopBlockContinuesOnce(t *testing.T) {
	f := &fakeHooks{outcomes: map[HookEvent]HookOutcome{HookStop: {Blocked: true, Reason: "run the tests", BlockedBy: "stop:0:/h.json"}}}
	h := hooksHarness(t, f, nil)
	h.srv.Enqueue(answer("m1", "done", 10), answer("m2", "tests pass", 10))
	h.say("fix it")
	evs := h.until(turnEnd)
	if c, _ := find[protocol.TurnCompleteEvent](evs); c.LastAgentMessage == nil || *c.LastAgentMessage != "tests pass" {
		t.Errorf("turn_complete: %+v", c)
	}
	got := summarize(h.requestInput(1))
	if want := `user: <hook_prompt hook_run_id="stop:0:/h.json">run the tests</hook_prompt>`; got[len(got)-1] != want {
		t.Errorf("last item %q, want %q", got[len(got)-1], want)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if last := f.inputs[len(f.inputs)-1]; last.Event != HookStop || !last.StopHookActive {
		t.Errorf("second stop input: %+v", last)
	}
}
