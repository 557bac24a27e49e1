package agents

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/tools/collab"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeThread is a child thread whose turn the test plays: Submit answers an interrupt with
// turn_aborted and a shutdown with shutdown_complete.
type fakeThread struct {
	id     string
	events chan protocol.Event
	done   chan struct{}
	mu     sync.Mutex
	ops    []protocol.Op
	once   sync.Once
}

func newFake(id string) *fakeThread {
	return &fakeThread{id: id, events: make(chan protocol.Event, 16), done: make(chan struct{})}
}

func (f *fakeThread) ID() string            { return f.id }
func (f *fakeThread) Done() <-chan struct{} { return f.done }
func (f *fakeThread) Submit(op protocol.Op) (string, error) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
	switch op.(type) {
	case protocol.InterruptOp:
		f.events <- protocol.Event{Msg: protocol.TurnAbortedEvent{Reason: protocol.AbortInterrupted}}
	case protocol.ShutdownOp:
		f.once.Do(func() { f.events <- protocol.Event{Msg: protocol.ShutdownCompleteEvent{}}; close(f.done) })
	}
	return "sub", nil
}
func (f *fakeThread) NextEvent(ctx context.Context) (protocol.Event, error) {
	select {
	case ev := <-f.events:
		return ev, nil
	case <-ctx.Done():
		return protocol.Event{}, ctx.Err()
	}
}

func (f *fakeThread) interrupted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, op := range f.ops {
		if _, ok := op.(protocol.InterruptOp); ok {
			return true
		}
	}
	return false
}

// world is a registry whose children are fakes, and the collaboration handler over it.
type world struct {
	reg      *Registry
	h        *collab.Handler
	mu       sync.Mutex
	children []*fakeThread
	started  []Child
	emitted  []protocol.EventMsg
}

func newWorld(t *testing.T, maxThreads int) *world { return newDeepWorld(t, maxThreads, 0) }

func newDeepWorld(t *testing.T, maxThreads, maxDepth int) *world {
	w := &world{}
	w.reg = New(Options{MaxThreads: maxThreads, MaxDepth: maxDepth, Start: func(ctx context.Context, c Child) (Thread, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		f := newFake("child-" + c.Path)
		f.events <- protocol.Event{Msg: protocol.TurnStartedEvent{}}
		w.children = append(w.children, f)
		w.started = append(w.started, c)
		return f, nil
	}})
	w.h = collab.New(w.reg)
	t.Cleanup(w.reg.Close)
	return w
}

func (w *world) env() *tool.Env { return w.envOf("root-thread") }

func (w *world) envOf(threadID string) *tool.Env {
	return &tool.Env{ThreadID: threadID, TurnID: "turn-1", Cwd: "/work",
		Emit: func(m protocol.EventMsg) { w.mu.Lock(); w.emitted = append(w.emitted, m); w.mu.Unlock() }}
}

func (w *world) call(t *testing.T, name, args string) tool.Result {
	t.Helper()
	res, err := w.h.Handle(context.Background(), w.env(), tool.Call{Kind: tool.FunctionCall, CallID: "c-" + name, Namespace: collab.Namespace, Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func answer(f *fakeThread, text string) {
	f.events <- protocol.Event{Msg: protocol.TurnCompleteEvent{LastAgentMessage: &text}}
}

func TestSpawnWaitDeliversTheFinalAnswer(t *testing.T) {
	w := newWorld(t, 0)
	res := w.call(t, "spawn_agent", `{"task_name":"worker","message":"do it"}`)
	if res.Output != `{"task_name":"/root/worker"}` {
		t.Fatalf("spawn output %q", res.Output)
	}
	c := w.started[0]
	if c.ParentThreadID != "root-thread" || c.RootThreadID != "root-thread" || c.Depth != 1 || c.Cwd != "/work" || !c.ForkHistory {
		t.Errorf("child spec %+v", c)
	}
	answer(w.children[0], "the answer")
	res = w.call(t, "wait_agent", `{"timeout_ms":60000}`)
	if res.Output != `{"message":"Wait completed.","timed_out":false}` {
		t.Fatalf("wait output %q", res.Output)
	}
	if len(res.FollowUp) != 1 {
		t.Fatalf("want the child's final answer after the wait, got %d items", len(res.FollowUp))
	}
	raw, _ := json.Marshal(res.FollowUp[0])
	for _, want := range []string{`"type":"agent_message"`, `"author":"/root/worker"`, `"recipient":"/root"`, `Message Type: FINAL_ANSWER`, `the answer`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("final answer item %s lacks %s", raw, want)
		}
	}
	// Nothing left to wait for: a clear answer, not a hang.
	res = w.call(t, "wait_agent", `{}`)
	if !strings.Contains(res.Output, "no agent is running") || res.Success {
		t.Errorf("wait on finished agents: %q", res.Output)
	}
}

func TestSpawnPastTheThreadLimitIsRefusedAsCodexDoes(t *testing.T) {
	w := newWorld(t, 2) // the root and one child
	w.call(t, "spawn_agent", `{"task_name":"one","message":"a"}`)
	res := w.call(t, "spawn_agent", `{"task_name":"two","message":"b"}`)
	if res.Output != "collab spawn failed: agent thread limit reached" {
		t.Errorf("second spawn: %q", res.Output)
	}
}

func TestUnknownTargetsAndBadArguments(t *testing.T) {
	w := newWorld(t, 0)
	for _, c := range []struct{ name, args, want string }{
		{"send_message", `{"target":"nobody","message":"hi"}`, "agent nobody not found"},
		{"followup_task", `{"target":"/root/ghost","message":"hi"}`, "agent /root/ghost not found"},
		{"interrupt_agent", `{"target":"nobody"}`, "agent nobody not found"},
		{"spawn_agent", `{"task_name":"Bad Name","message":"x"}`, "lowercase letters, digits, and underscores"},
		{"spawn_agent", `{"task_name":"x","message":"y","fork_turns":"3"}`, "fork_turns must be"},
		{"spawn_agent", `{not json`, "failed to parse function arguments"},
	} {
		res := w.call(t, c.name, c.args)
		if !strings.Contains(res.Output, c.want) || res.Success {
			t.Errorf("%s %s: %q, want %q", c.name, c.args, res.Output, c.want)
		}
	}
}

func TestChildThatErrorsAnswersWithItsError(t *testing.T) {
	w := newWorld(t, 0)
	w.call(t, "spawn_agent", `{"task_name":"worker","message":"do it"}`)
	w.children[0].events <- protocol.Event{Msg: protocol.TurnCompleteEvent{Error: &protocol.TurnError{Message: "stream disconnected"}}}
	res := w.call(t, "wait_agent", `{}`)
	raw, _ := json.Marshal(res.FollowUp)
	if !strings.Contains(string(raw), "The agent's turn failed: stream disconnected") {
		t.Errorf("errored child's answer: %s", raw)
	}
	list := w.call(t, "list_agents", `{}`)
	if list.Output != `{"agents":[{"agent_name":"/root","agent_status":"running"},{"agent_name":"/root/worker","agent_status":"errored"}]}` {
		t.Errorf("list_agents: %s", list.Output)
	}
}

func TestInterruptOfTheParentReachesItsChildren(t *testing.T) {
	w := newWorld(t, 0)
	w.call(t, "spawn_agent", `{"task_name":"a","message":"x"}`)
	w.call(t, "spawn_agent", `{"task_name":"b","message":"y"}`)
	w.reg.InterruptChildren("root-thread")
	for _, f := range w.children {
		if !f.interrupted() {
			t.Errorf("%s was not interrupted", f.id)
		}
	}
}

// TestUnseenRequestsOfAChildAreAnswered: with no face showing the child (exec), its
// approval request is denied and its questions answered empty, so it never hangs.
func TestUnseenRequestsOfAChildAreAnswered(t *testing.T) {
	w := newWorld(t, 0)
	w.call(t, "spawn_agent", `{"task_name":"worker","message":"do it"}`)
	f := w.children[0]
	f.events <- protocol.Event{Msg: protocol.ExecApprovalRequestEvent{CallID: "c1", TurnID: "t1"}}
	f.events <- protocol.Event{Msg: protocol.RequestUserInputEvent{CallID: "c2", TurnID: "t1"}}
	answer(f, "done")
	w.call(t, "wait_agent", `{}`) // the answer comes after both requests were handled
	f.mu.Lock()
	defer f.mu.Unlock()
	var denied, answered bool
	for _, op := range f.ops {
		switch o := op.(type) {
		case protocol.ExecApprovalOp:
			denied = o.ID == "c1" && o.Decision.Kind == protocol.DecisionDenied
		case protocol.UserInputAnswerOp:
			answered = o.ID == "t1"
		}
	}
	if !denied || !answered {
		t.Errorf("denied %v, answered %v; ops %v", denied, answered, f.ops)
	}
}

// TestDepthLimit: under [agents] max_depth = 2 a child spawns its own child, whose spawn is
// refused; the path names the whole line.
func TestDepthLimit(t *testing.T) {
	w := newDeepWorld(t, 0, 2)
	w.call(t, "spawn_agent", `{"task_name":"lead","message":"x"}`)
	spawnAs := func(threadID, name string) tool.Result {
		res, err := w.h.Handle(context.Background(), w.envOf(threadID), tool.Call{Kind: tool.FunctionCall, CallID: "c", Namespace: collab.Namespace, Name: "spawn_agent",
			Arguments: `{"task_name":"` + name + `","message":"y"}`})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := spawnAs("child-/root/lead", "helper"); res.Output != `{"task_name":"/root/lead/helper"}` {
		t.Fatalf("grandchild spawn: %q", res.Output)
	}
	if w.started[1].Depth != 2 || w.started[1].ParentThreadID != "child-/root/lead" || w.started[1].RootThreadID != "root-thread" {
		t.Errorf("grandchild spec %+v", w.started[1])
	}
	if res := spawnAs("child-/root/lead/helper", "deeper"); res.Output != "collab spawn failed: agent depth limit reached" {
		t.Errorf("spawn past the depth: %q", res.Output)
	}
}
