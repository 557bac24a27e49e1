// Package loaded is the host's table of loaded threads, as Codex keeps them: in load
// order, each kept while anyone watches it (a face's subscriber) and, once nobody does,
// unloaded when it has been idle for the unload delay (thread_unload_delay_secs); a
// watcher that comes back within the delay keeps it, and a running turn keeps it too.
package loaded

import (
	"sync"
	"time"
)

// Thread is a loaded thread as the table sees it. Its methods take the face's own lock:
// the table never calls them while it holds one of its locks.
type Thread interface {
	ID() string
	// Watched says whether anyone keeps the thread loaded.
	Watched() bool
	// Idle is when the thread last did something, and whether a turn is running.
	Idle() (last time.Time, running bool)
	// Shutdown ends the thread; the table has forgotten it already.
	Shutdown()
}

// Table is the loaded threads.
type Table[T Thread] struct {
	delay time.Duration

	mu     sync.Mutex
	loaded map[string]*entry[T]
	order  []string
}

// entry is a loaded thread and its pending unload.
type entry[T Thread] struct {
	t T

	mu    sync.Mutex
	timer *time.Timer // runs while nobody watches the thread, until the delay has passed
	gen   int         // which arming of timer is current: a stale firing does nothing
}

// New is an empty table; delay 0 unloads a thread as soon as nobody watches it.
func New[T Thread](delay time.Duration) *Table[T] {
	return &Table[T]{delay: max(delay, 0), loaded: map[string]*entry[T]{}}
}

// Delay is the unload delay.
func (tb *Table[T]) Delay() time.Duration { return tb.delay }

// Add puts a started thread in the table, last.
func (tb *Table[T]) Add(t T) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.loaded[t.ID()] = &entry[T]{t: t}
	tb.order = append(tb.order, t.ID())
}

// Get is a loaded thread.
func (tb *Table[T]) Get(id string) (T, bool) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	e, ok := tb.loaded[id]
	if !ok {
		var zero T
		return zero, false
	}
	return e.t, true
}

// List is the loaded threads in load order.
func (tb *Table[T]) List() []T {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	out := make([]T, 0, len(tb.order))
	for _, id := range tb.order {
		out = append(out, tb.loaded[id].t)
	}
	return out
}

func (tb *Table[T]) entry(t T) *entry[T] {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if e, ok := tb.loaded[t.ID()]; ok && any(e.t) == any(t) {
		return e
	}
	return nil
}

// Watch tells the table whether anyone watches t now; the face may hold its own lock. A
// watched thread's pending unload stops. An unwatched one is unloaded after the delay; with
// no delay Watch reports unloadNow, and the caller unloads it (Unload) once its lock is
// released.
func (tb *Table[T]) Watch(t T, watched bool) (unloadNow bool) {
	e := tb.entry(t)
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if watched {
		e.stopLocked()
		return false
	}
	if e.timer != nil {
		return false // an unload is pending already
	}
	if tb.delay <= 0 {
		return true
	}
	tb.armLocked(e, tb.delay)
	return false
}

func (e *entry[T]) stopLocked() {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	e.gen++
}

// armLocked (re)starts e's unload timer. e.mu is held.
func (tb *Table[T]) armLocked(e *entry[T], d time.Duration) {
	e.gen++
	gen := e.gen
	e.timer = time.AfterFunc(d, func() { tb.fire(e, gen) })
}

// fire unloads e's thread once nobody has watched it and nothing has happened on it for
// the delay; otherwise it looks again when the delay could have passed.
func (tb *Table[T]) fire(e *entry[T], gen int) {
	current := func() bool { return e.timer != nil && gen == e.gen }
	e.mu.Lock()
	ok := current()
	e.mu.Unlock()
	if !ok {
		return // watched again, or unloaded
	}
	watched := e.t.Watched()
	last, running := e.t.Idle()
	e.mu.Lock()
	if !current() {
		e.mu.Unlock()
		return
	}
	if watched {
		e.stopLocked()
		e.mu.Unlock()
		return
	}
	wait := tb.delay - time.Since(last)
	if running {
		wait = tb.delay
	}
	if wait > 0 {
		tb.armLocked(e, wait)
		e.mu.Unlock()
		return
	}
	e.timer = nil
	e.mu.Unlock()
	tb.Unload(e.t)
}

// Unload forgets t and shuts it down; it reports false when t was not loaded (unloaded
// already).
func (tb *Table[T]) Unload(t T) bool {
	tb.mu.Lock()
	e, ok := tb.loaded[t.ID()]
	if !ok || any(e.t) != any(t) {
		tb.mu.Unlock()
		return false
	}
	delete(tb.loaded, t.ID())
	for i, id := range tb.order {
		if id == t.ID() {
			tb.order = append(tb.order[:i:i], tb.order[i+1:]...)
			break
		}
	}
	tb.mu.Unlock()
	e.mu.Lock()
	e.stopLocked()
	e.mu.Unlock()
	t.Shutdown()
	return true
}

// UnloadAll unloads every thread at once (the host closing) and returns them.
func (tb *Table[T]) UnloadAll() []T {
	all := tb.List()
	for _, t := range all {
		tb.Unload(t)
	}
	return all
}
