package goals

import (
	"testing"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/protocol"
)

// fakeThread is a loaded thread that records what is submitted to it.
type fakeThread struct {
	id        string
	submitted []protocol.Op
}

func (f *fakeThread) ID() string                       { return f.id }
func (f *fakeThread) FeatureEnabled(string, bool) bool { return true }
func (f *fakeThread) Ephemeral() bool                  { return false }
func (f *fakeThread) Submit(op protocol.Op) (string, error) {
	f.submitted = append(f.submitted, op)
	return "sub", nil
}

func newHost(t *testing.T) (*ext.Set, *Extension) {
	t.Helper()
	g := New()
	set, err := ext.New(ext.Options{CodexHome: t.TempDir()}, g)
	if err != nil {
		t.Fatal(err)
	}
	return set, g
}

// An active goal's time is the sum of its turns' durations, in whole seconds, the
// milliseconds of short turns adding up; a goal that is not active takes none.
func TestGoalTimeAddsUp(t *testing.T) {
	set, g := newHost(t)
	th := &fakeThread{id: "01a21eb0-79e0-7d92-9a8d-98e5a8f5fd52"}
	objective, paused := "ship it", "paused"
	if _, err := g.Set(th.id, &objective, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, ms := range []int64{600, 700, 800} {
		ms := ms
		set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{DurationMs: &ms, Error: &protocol.TurnError{Message: "no pursuit in this test"}}})
	}
	cur, _ := g.Of(th.id)
	if cur.TimeUsedSeconds != 2 {
		t.Errorf("time used %d s after 2.1 s of turns, want 2", cur.TimeUsedSeconds)
	}
	if _, err := g.Set(th.id, nil, &paused, nil); err != nil {
		t.Fatal(err)
	}
	ms := int64(5000)
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{DurationMs: &ms}})
	if cur, _ := g.Of(th.id); cur.TimeUsedSeconds != 2 {
		t.Errorf("a paused goal took time: %d s", cur.TimeUsedSeconds)
	}
	if len(th.submitted) != 0 {
		t.Errorf("a goal turn was started for a paused goal or after a failed turn: %v", th.submitted)
	}
}

// A turn that completes with the goal active starts one goal turn (the objective as
// context the first time); another turn end before it begins starts none.
func TestGoalTurnAfterCompletedTurn(t *testing.T) {
	set, g := newHost(t)
	th := &fakeThread{id: "01a21eb0-79e0-7d92-9a8d-98e5a8f5fd53"}
	objective := "ship it"
	if _, err := g.Set(th.id, &objective, nil, nil); err != nil {
		t.Fatal(err)
	}
	g.MarkFresh(th.id)
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{}})
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{}})
	if len(th.submitted) != 1 {
		t.Fatalf("%d goal turns submitted, want 1", len(th.submitted))
	}
	op, ok := th.submitted[0].(protocol.GoalTurnOp)
	if !ok || len(op.Items) != 2 {
		t.Fatalf("goal turn = %#v, want the objective and the continuation", th.submitted[0])
	}
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnStartedEvent{}})
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{}})
	if len(th.submitted) != 2 {
		t.Fatalf("%d goal turns after the first began and ended, want 2", len(th.submitted))
	}
	if op := th.submitted[1].(protocol.GoalTurnOp); len(op.Items) != 1 {
		t.Errorf("the second goal turn repeats the objective: %d items", len(op.Items))
	}
}

// While a goal setting of a loaded thread is in flight a turn's end starts no goal turn;
// the setting, done on an idle thread, starts one that gives the objective.
func TestGoalSettingDecidesTheTurn(t *testing.T) {
	set, g := newHost(t)
	th := &fakeThread{id: "01a21eb0-79e0-7d92-9a8d-98e5a8f5fd54"}
	objective := "ship it"
	goal, done, err := g.SetLoaded(th.id, &objective, nil, nil)
	if err != nil || goal.Status != "active" {
		t.Fatalf("SetLoaded = %+v, %v", goal, err)
	}
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnCompleteEvent{}})
	if len(th.submitted) != 0 {
		t.Fatalf("a turn's end started a goal turn while the setting was in flight")
	}
	done(th, true)
	if len(th.submitted) != 1 || len(th.submitted[0].(protocol.GoalTurnOp).Items) != 2 {
		t.Fatalf("after the setting: %#v, want one goal turn with the objective", th.submitted)
	}
	_, again, err := g.SetLoaded(th.id, nil, nil, nil)
	if err != nil {
		t.Fatalf("setting nothing new: %v", err)
	}
	again(nil, false)
	empty := &fakeThread{id: "01a21eb0-79e0-7d92-9a8d-98e5a8f5fd55"}
	if _, done, err := g.SetLoaded(empty.id, nil, nil, nil); err == nil || done != nil {
		t.Errorf("a thread without a goal took a change (err %v)", err)
	}
	set.AfterEvent(empty, protocol.Event{Msg: protocol.TurnCompleteEvent{}}) // the failed setting holds nothing
}
