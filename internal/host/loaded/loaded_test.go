package loaded

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is a thread whose watchers and idleness the test sets.
type fake struct {
	id string

	mu       sync.Mutex
	watched  bool
	last     time.Time
	running  bool
	shutdown int
}

func (f *fake) ID() string { return f.id }
func (f *fake) Watched() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watched
}
func (f *fake) Idle() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.running
}
func (f *fake) Shutdown() {
	f.mu.Lock()
	f.shutdown++
	f.mu.Unlock()
}

func ids(ts []*fake) (out []string) {
	for _, t := range ts {
		out = append(out, t.id)
	}
	return out
}

// Threads list in load order; without an unload delay an unwatched thread is to be
// unloaded at once, and unloading forgets and shuts it down once.
func TestTableNoDelay(t *testing.T) {
	tb := New[*fake](0)
	a, b, c := &fake{id: "a"}, &fake{id: "b"}, &fake{id: "c"}
	for _, f := range []*fake{a, b, c} {
		tb.Add(f)
	}
	if got := ids(tb.List()); len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Errorf("list = %v", got)
	}
	if tb.Watch(b, true) {
		t.Errorf("a watched thread is to be unloaded")
	}
	if !tb.Watch(b, false) {
		t.Fatalf("an unwatched thread without delay is kept")
	}
	if !tb.Unload(b) || tb.Unload(b) {
		t.Errorf("Unload twice did not report once")
	}
	if _, ok := tb.Get("b"); ok || b.shutdown != 1 {
		t.Errorf("unloaded thread still there (%v) or shut down %d times", ok, b.shutdown)
	}
	if got := ids(tb.List()); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("list after unload = %v", got)
	}
	all := tb.UnloadAll()
	if len(all) != 2 || len(tb.List()) != 0 || a.shutdown != 1 || c.shutdown != 1 {
		t.Errorf("UnloadAll left %v, shut down a %d c %d", tb.List(), a.shutdown, c.shutdown)
	}
}

// With a delay, the pending unload (fired here by hand, so no timing is asserted) keeps a
// thread that is watched again, recently active or running a turn, and unloads one idle
// for the delay; a stale firing does nothing.
func TestTableDelayedUnload(t *testing.T) {
	tb := New[*fake](time.Hour)
	f := &fake{id: "t", last: time.Now()}
	tb.Add(f)
	defer tb.UnloadAll()
	if tb.Watch(f, false) {
		t.Fatalf("unloaded at once despite the delay")
	}
	e := tb.entry(f)
	pending := func() (int, bool) {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.gen, e.timer != nil
	}
	gen, ok := pending()
	if !ok {
		t.Fatalf("no unload pending for an unwatched thread")
	}
	tb.fire(e, gen) // active a moment ago: looks again later
	if _, ok := tb.Get("t"); !ok {
		t.Fatalf("a recently active thread was unloaded")
	}
	gen, _ = pending()
	f.mu.Lock()
	f.last, f.running = time.Now().Add(-2*time.Hour), true
	f.mu.Unlock()
	tb.fire(e, gen) // a turn is running: kept
	if _, ok := tb.Get("t"); !ok {
		t.Fatalf("a thread running a turn was unloaded")
	}
	stale, _ := pending()
	f.mu.Lock()
	f.watched = true
	f.mu.Unlock()
	tb.fire(e, stale) // watched again: the pending unload stops
	if _, ok := pending(); ok {
		t.Errorf("unload still pending for a watched thread")
	}
	tb.fire(e, stale)
	f.mu.Lock()
	f.watched, f.running = false, false
	f.mu.Unlock()
	tb.Watch(f, false)
	gen, _ = pending()
	tb.fire(e, gen-1) // stale
	if _, ok := tb.Get("t"); !ok {
		t.Fatalf("a stale firing unloaded the thread")
	}
	tb.fire(e, gen)
	if _, ok := tb.Get("t"); ok || f.shutdown != 1 {
		t.Errorf("an idle unwatched thread was kept (shut down %d times)", f.shutdown)
	}
}
