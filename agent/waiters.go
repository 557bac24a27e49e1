package agent

import (
	"context"
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// waiters holds the tools waiting for the client to answer a request put to the person (an
// approval, a question), keyed by the id the answer names. The zero value is ready.
type waiters[T any] struct {
	mu sync.Mutex
	m  map[string]chan T
}

// ask registers a waiter for id, emits the request on tr and waits for the answer. The
// first answer wins; when ctx ends first (an interrupt) it returns ctx's error.
func (w *waiters[T]) ask(ctx context.Context, tr *turn, id string, msg protocol.EventMsg) (T, error) {
	var zero T
	ch := make(chan T, 1)
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]chan T{}
	}
	w.m[id] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		if w.m[id] == ch {
			delete(w.m, id)
		}
		w.mu.Unlock()
	}()
	if !tr.emit(msg) {
		return zero, context.Canceled
	}
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// answer delivers v to the waiter for id and reports whether there was one; a second answer
// to the same request finds none.
func (w *waiters[T]) answer(id string, v T) bool {
	w.mu.Lock()
	ch, ok := w.m[id]
	delete(w.m, id)
	w.mu.Unlock()
	if ok {
		ch <- v
	}
	return ok
}
