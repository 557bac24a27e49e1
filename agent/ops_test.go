package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func TestThreadRollback(t *testing.T) {
	rec := &memRecorder{}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.Recorder = rec }})
	h.srv.Enqueue(answer("m1", "one", 10), answer("m2", "two", 10), answer("m3", "three", 10), answer("m4", "four", 10))
	for _, q := range []string{"first", "second", "third"} {
		h.say(q)
		h.until(turnEnd)
	}
	id := h.submit(protocol.ThreadRollbackOp{NumTurns: 2})
	evs := h.until(isType("thread_rolled_back"))
	last := evs[len(evs)-1]
	if rb := last.Msg.(protocol.ThreadRolledBackEvent); rb.NumTurns != 2 || last.ID != id {
		t.Errorf("thread_rolled_back = %+v (id %q, want %q)", rb, last.ID, id)
	}
	h.say("again")
	h.until(turnEnd)
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one", "user: again"}
	if diff := cmp.Diff(want, summarize(h.requestInput(3))); diff != "" {
		t.Errorf("request after rollback (-want +got):\n%s", diff)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var recorded bool
	for _, e := range rec.events {
		if _, ok := e.Msg.(protocol.ThreadRolledBackEvent); ok {
			recorded = true
		}
	}
	if !recorded {
		t.Error("thread_rolled_back was not recorded")
	}
}

func TestThreadRollbackRefused(t *testing.T) {
	release := make(chan struct{})
	wait := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.BackgroundEventEvent{Message: "waiting"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return tool.Result{Output: "ok", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: wait}
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})), answer("m1", "done", 10))

	h.submit(protocol.ThreadRollbackOp{NumTurns: 0})
	evs := h.until(isType("error"))
	if e := evs[len(evs)-1].Msg.(protocol.ErrorEvent); e.Message != "num_turns must be >= 1" || string(e.CodexErrorInfo) != `"thread_rollback_failed"` {
		t.Errorf("error = %+v", e)
	}

	h.say("go")
	h.until(isType("background_event"))
	h.submit(protocol.ThreadRollbackOp{NumTurns: 1})
	evs = h.until(isType("error"))
	if e := evs[len(evs)-1].Msg.(protocol.ErrorEvent); e.Message != "Cannot rollback while a turn is in progress." {
		t.Errorf("error = %+v", e)
	}
	close(release)
	h.until(turnEnd)
}

// TestBackgroundToolEventsOutliveTurn: a tool that leaves work running (a unified-exec
// session) keeps reporting through its Env after the turn has ended.
func TestBackgroundToolEventsOutliveTurn(t *testing.T) {
	rec := &memRecorder{}
	later := make(chan struct{})
	var bg sync.WaitGroup
	var envMu sync.Mutex
	var kept *tool.Env
	start := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		envMu.Lock()
		kept = env
		envMu.Unlock()
		bg.Add(1)
		go func() {
			defer bg.Done()
			<-later
			env.Emit(protocol.ExecCommandOutputDeltaEvent{CallID: call.CallID, Stream: "stdout", Chunk: []byte("late\n")})
			env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID, Stdout: "late\n"})
		}()
		return tool.Result{Output: "started in the background", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: start}
		c.Recorder = rec
	}})
	defer bg.Wait()
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})), answer("m1", "done", 10))
	id := h.say("run it in the background")
	h.until(turnEnd)
	close(later)
	evs := h.until(isType("exec_command_end"))
	for _, e := range evs {
		if e.ID != id {
			t.Errorf("%s carries id %q, want the turn's %q", e.Msg.EventType(), e.ID, id)
		}
	}
	if diff := cmp.Diff([]string{"exec_command_output_delta", "exec_command_end"}, types(evs)); diff != "" {
		t.Errorf("late events (-want +got):\n%s", diff)
	}
	bg.Wait()

	// After shutdown the env is still safe to call; nothing more is recorded or queued.
	h.submit(protocol.ShutdownOp{})
	h.until(isType("shutdown_complete"))
	<-h.thread.Done()
	rec.mu.Lock()
	n := len(rec.events)
	rec.mu.Unlock()
	envMu.Lock()
	kept.Emit(protocol.ExecCommandEndEvent{CallID: "c1"})
	envMu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) != n {
		t.Errorf("an event after shutdown was recorded: %v", rec.events[n:])
	}
}

// TestAbortedCallEventsDropped: a call still in its handler when the turn is interrupted is
// part of the turn; what it emits afterwards does not follow turn_aborted.
func TestAbortedCallEventsDropped(t *testing.T) {
	unblock := make(chan struct{})
	stuck := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.BackgroundEventEvent{Message: "running"})
		<-unblock
		env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID})
		return tool.Result{Output: "late"}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: stuck}
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})), answer("m1", "ok", 1))
	h.say("go")
	h.until(isType("background_event"))
	h.submit(protocol.InterruptOp{})
	h.until(turnEnd)
	close(unblock)
	h.say("next")
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ExecCommandEndEvent](evs); ok {
		t.Errorf("event of an aborted call leaked into the next turn: %v", types(evs))
	}
}

func TestCleanBackgroundTerminals(t *testing.T) {
	called := make(chan struct{}, 4)
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.OnCleanBackgroundTerminals = func() { called <- struct{}{} }
	}})
	h.submit(protocol.CleanBackgroundTerminalsOp{})
	// Ops are handled in order: once this one is answered, the clean-up has run.
	h.submit(protocol.GetHistoryEntryRequestOp{})
	evs := h.until(isType("get_history_entry_response"))
	if len(called) != 1 {
		t.Errorf("hook called %d times", len(called))
	}
	for _, e := range evs {
		if _, ok := e.Msg.(protocol.ErrorEvent); ok {
			t.Errorf("clean_background_terminals answered with an error: %+v", e.Msg)
		}
	}
	// Without a hook the op is accepted and does nothing.
	h2 := newHarness(t, harnessOpts{})
	h2.submit(protocol.CleanBackgroundTerminalsOp{})
	h2.submit(protocol.GetHistoryEntryRequestOp{})
	for _, e := range h2.until(isType("get_history_entry_response")) {
		if _, ok := e.Msg.(protocol.ErrorEvent); ok {
			t.Errorf("clean_background_terminals without a hook: %+v", e.Msg)
		}
	}
}

func TestServerModelRerouteWarning(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	r := answer("m1", "hi", 10)
	r.Header = map[string]string{"openai-model": "gpt-5.4"}
	h.srv.Enqueue(r)
	h.say("hello")
	evs := h.until(turnEnd)
	rr, ok := find[protocol.ModelRerouteEvent](evs)
	if !ok || rr.FromModel == "" || rr.ToModel != "gpt-5.4" || rr.Reason != protocol.ModelRerouteHighRiskCyberActivity {
		t.Errorf("model_reroute = %+v (found %v)", rr, ok)
	}
	w, ok := find[protocol.WarningEvent](evs)
	if !ok {
		t.Fatalf("no warning: %v", types(evs))
	}
	// Codex 0.169 names gpt-5.2 whatever the header says.
	want := "Your account was flagged for potentially high-risk cyber activity and this request was routed to gpt-5.2 as a fallback. To regain access to gpt-5.3-codex, apply for trusted access: https://chatgpt.com/cyber or learn more: https://developers.openai.com/codex/concepts/cyber-safety"
	if w.Message != want {
		t.Errorf("warning = %q", w.Message)
	}
	if n := strings.Count(strings.Join(types(evs), " "), "warning"); n != 1 {
		t.Errorf("%d warnings", n)
	}
}
