package agent

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// ErrThreadClosed is returned by Submit after shutdown and by NextEvent once the last event
// has been read.
var ErrThreadClosed = errors.New("thread closed")

// coalesceBacklog is how many events must be waiting before a new delta is merged into the
// one at the tail: below it every delta is delivered on its own.
const coalesceBacklog = 64

// maxCoalesced caps a merged delta: merging copies the text, so an unbounded tail would
// make a long backlog quadratic.
const maxCoalesced = 1 << 10

// readerSpins is how many times an idle reader yields before it blocks.
const readerSpins = 20

// eventQueue is the ordered, unbounded event queue with the coalescing rule of the package
// doc. Producers never block.
type eventQueue struct {
	mu     sync.Mutex
	events []protocol.Event
	head   int
	closed bool
	// notify has room for one wake-up; a reader waits on it when the queue is empty.
	notify chan struct{}
}

func newEventQueue() *eventQueue {
	return &eventQueue{notify: make(chan struct{}, 1)}
}

// push appends ev, merging it into the tail delta when the reader is behind.
func (q *eventQueue) push(ev protocol.Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	if n := len(q.events); n-q.head >= coalesceBacklog && coalesce(&q.events[n-1], ev) {
		q.mu.Unlock()
		return
	}
	q.events = append(q.events, ev)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// close marks the end of the stream; events already queued are still delivered.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *eventQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// next returns the oldest event, waiting for one until ctx ends.
func (q *eventQueue) next(ctx context.Context) (protocol.Event, error) {
	spin := 0
	for {
		q.mu.Lock()
		if q.head < len(q.events) {
			ev := q.events[q.head]
			q.events[q.head] = protocol.Event{}
			q.head++
			if q.head == len(q.events) {
				// Drained: reuse the backing array.
				q.events = q.events[:0]
				q.head = 0
			}
			more := q.head < len(q.events) || q.closed
			q.mu.Unlock()
			if more {
				// Pass the wake-up on, so a second reader is not left waiting.
				select {
				case q.notify <- struct{}{}:
				default:
				}
			}
			return ev, nil
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return protocol.Event{}, ErrThreadClosed
		}
		if spin < readerSpins {
			// While a turn streams, the next event is usually microseconds away; yielding a
			// few times is much cheaper than parking the reader and waking it per event.
			spin++
			runtime.Gosched()
			continue
		}
		select {
		case <-q.notify:
		case <-ctx.Done():
			return protocol.Event{}, ctx.Err()
		}
	}
}

// coalesce merges next into tail when both are deltas of the same stream and the tail is
// still small.
func coalesce(tail *protocol.Event, next protocol.Event) bool {
	if tail.ID != next.ID {
		return false
	}
	switch n := next.Msg.(type) {
	case protocol.AgentMessageDeltaEvent:
		if t, ok := tail.Msg.(protocol.AgentMessageDeltaEvent); ok && len(t.Delta) < maxCoalesced {
			t.Delta += n.Delta
			tail.Msg = t
			return true
		}
	case protocol.AgentReasoningDeltaEvent:
		if t, ok := tail.Msg.(protocol.AgentReasoningDeltaEvent); ok && len(t.Delta) < maxCoalesced {
			t.Delta += n.Delta
			tail.Msg = t
			return true
		}
	case protocol.AgentReasoningRawContentDeltaEvent:
		if t, ok := tail.Msg.(protocol.AgentReasoningRawContentDeltaEvent); ok && len(t.Delta) < maxCoalesced {
			t.Delta += n.Delta
			tail.Msg = t
			return true
		}
	case protocol.ExecCommandOutputDeltaEvent:
		if t, ok := tail.Msg.(protocol.ExecCommandOutputDeltaEvent); ok && t.CallID == n.CallID && t.Stream == n.Stream &&
			len(t.Chunk) < maxCoalesced {
			// A fresh slice: the producer may still own the tail's backing array.
			t.Chunk = append(append(make([]byte, 0, len(t.Chunk)+len(n.Chunk)), t.Chunk...), n.Chunk...)
			tail.Msg = t
			return true
		}
	}
	return false
}
