package appserver

import (
	"testing"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// An active goal's time is the sum of its turns' durations, in whole seconds, the
// milliseconds of short turns adding up; a goal that is not active takes none.
func TestGoalTimeAddsUp(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{CodexHome: home}
	r := &threads{srv: &Server{opts: Options{Config: cfg}}}
	lt := &loadedThread{id: "01a21eb0-79e0-7d92-9a8d-98e5a8f5fd52", cfg: cfg}
	_ = r.state().update(func(d *threadStateDoc) error {
		setGoal(d, v2ThreadGoal{ThreadID: lt.id, Objective: "ship it", Status: "active"})
		return nil
	})
	for _, ms := range []int64{600, 700, 800} {
		ms := ms
		r.afterGoalEvent(lt, protocol.Event{Msg: protocol.TurnCompleteEvent{DurationMs: &ms, Error: &protocol.TurnError{Message: "no pursuit in this test"}}})
	}
	g, _ := r.goalOf(lt.id)
	if g.TimeUsedSeconds != 2 {
		t.Errorf("time used %d s after 2.1 s of turns, want 2", g.TimeUsedSeconds)
	}
	_ = r.state().update(func(d *threadStateDoc) error {
		g := d.Goals[lt.id]
		g.Status = "paused"
		setGoal(d, g)
		return nil
	})
	ms := int64(5000)
	r.afterGoalEvent(lt, protocol.Event{Msg: protocol.TurnCompleteEvent{DurationMs: &ms}})
	if g, _ := r.goalOf(lt.id); g.TimeUsedSeconds != 2 {
		t.Errorf("a paused goal took time: %d s", g.TimeUsedSeconds)
	}
}
