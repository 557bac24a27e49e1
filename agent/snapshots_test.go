package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

type fakeSnapshots struct {
	mu       sync.Mutex
	calls    []string
	beginErr error
}

func (f *fakeSnapshots) BeginTurn(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "begin")
	return f.beginErr
}

func (f *fakeSnapshots) EndTurn(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil {
		f.calls = append(f.calls, "end with a dead context")
	}
	f.calls = append(f.calls, "end")
	return nil
}

func (f *fakeSnapshots) QuietTurn(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "quiet")
	return nil
}

func (f *fakeSnapshots) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// A turn that runs tools is snapshotted before the first one and again before its end is
// reported, also when it is interrupted; a turn that only answers is recorded as quiet, with
// no snapshot; a failed snapshot is a warning and the turn goes on.
func TestTurnSnapshots(t *testing.T) {
	noop := fakeTool{name: "exec_command", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		return tool.Result{Output: "ok"}, nil
	}}
	withTool := func(snaps TurnSnapshotter) func(*ThreadConfig) {
		return func(c *ThreadConfig) {
			c.TurnSnapshots = snaps
			c.ToolHandlers = map[string]tool.Handler{"exec_command": noop}
			c.ModelInfo.Tools.ShellType = tools.ShellTypeUnifiedExec
		}
	}
	call := testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "exec_command", `{"cmd":"true"}`), testkit.Completed(testkit.Usage{}))
	snaps := &fakeSnapshots{}
	h := newHarness(t, harnessOpts{cfg: withTool(snaps)})
	h.srv.Enqueue(answer("m1", "one", 5), call, testkit.Stall(3, testkit.Created(), testkit.AssistantMessageStream("m2", "slow")))
	h.say("first")
	h.until(turnEnd)
	if diff := cmp.Diff([]string{"quiet"}, snaps.seen()); diff != "" {
		t.Fatalf("calls by the first turn_complete (-want +got):\n%s", diff)
	}
	h.say("second")
	h.until(isType("agent_message_delta"))
	h.submit(protocol.InterruptOp{})
	h.until(turnEnd)
	if diff := cmp.Diff([]string{"quiet", "begin", "end"}, snaps.seen()); diff != "" {
		t.Fatalf("calls by turn_aborted (-want +got):\n%s", diff)
	}

	failing := &fakeSnapshots{beginErr: errors.New("disk full")}
	h2 := newHarness(t, harnessOpts{cfg: withTool(failing)})
	h2.srv.Enqueue(call, answer("m1", "still answered", 5))
	h2.say("go")
	evs := h2.until(turnEnd)
	w, ok := find[protocol.WarningEvent](evs)
	if !ok || !strings.Contains(w.Message, "disk full") {
		t.Errorf("warning %+v", w)
	}
	if m, _ := find[protocol.AgentMessageEvent](evs); m.Message != "still answered" {
		t.Errorf("the turn did not go on: %+v", m)
	}
	if diff := cmp.Diff([]string{"begin"}, failing.seen()); diff != "" {
		t.Errorf("calls after a failed begin (-want +got):\n%s", diff)
	}
}
