package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
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

func (f *fakeSnapshots) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Every turn is snapshotted before it runs and again before its end is reported, also when
// it is interrupted; a failed snapshot is a warning and the turn goes on.
func TestTurnSnapshots(t *testing.T) {
	snaps := &fakeSnapshots{}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.TurnSnapshots = snaps }})
	h.srv.Enqueue(answer("m1", "one", 5), testkit.Stall(3, testkit.Created(), testkit.AssistantMessageStream("m2", "slow")))
	h.say("first")
	h.until(turnEnd)
	if diff := cmp.Diff([]string{"begin", "end"}, snaps.seen()); diff != "" {
		t.Fatalf("calls by turn_complete (-want +got):\n%s", diff)
	}
	h.say("second")
	h.until(isType("agent_message_delta"))
	h.submit(protocol.InterruptOp{})
	h.until(turnEnd)
	if diff := cmp.Diff([]string{"begin", "end", "begin", "end"}, snaps.seen()); diff != "" {
		t.Fatalf("calls by turn_aborted (-want +got):\n%s", diff)
	}

	failing := &fakeSnapshots{beginErr: errors.New("disk full")}
	h2 := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.TurnSnapshots = failing }})
	h2.srv.Enqueue(answer("m1", "still answered", 5))
	h2.say("go")
	evs := h2.until(turnEnd)
	w, ok := find[protocol.WarningEvent](evs)
	if !ok || !strings.Contains(w.Message, "disk full") {
		t.Errorf("warning %+v", w)
	}
	if m, _ := find[protocol.AgentMessageEvent](evs); m.Message != "still answered" {
		t.Errorf("the turn did not go on: %+v", m)
	}
}
