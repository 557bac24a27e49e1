package appserver

import (
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// Each connection subscribed to a thread gets its own bounded queue of that thread's
// notifications, drained by its own goroutine, so a client that stops reading stalls only
// its own queue: the thread's pump and the other subscribers go on.
//
// What a stalled subscriber loses:
//   - Once its queue is half full, a delta (item/agentMessage/delta, item/reasoning/*Delta,
//     item/commandExecution/outputDelta, item/fileChange/outputDelta) is appended to the
//     queued delta before it when both belong to the same item (and summary or content
//     part), up to maxMergedDelta bytes: the client gets fewer, longer deltas with the same
//     text. Nothing else is merged or dropped. (A merged delta stays small enough to be
//     encoded and written without a copy of the whole backlog: a long answer waits here
//     as the text itself, and the connection's outgoing queue holds at most
//     jsonrpc.DefaultOutgoingBytes of it encoded.)
//   - When the queue is full with notifications that cannot be merged, a websocket
//     connection is closed, as Codex disconnects a websocket client whose outbound queue
//     stays full: it loses the rest and can reconnect and thread/resume (or thread/read).
//     A stdio or in-process connection is not dropped at once (there is normally no other
//     client to protect): the thread's pump waits for room in its queue, which is the
//     backpressure the package doc describes, reached only this far behind. A client that
//     leaves it full for Options.StalledClientTimeout is disconnected, with the reason
//     logged, so a client gone silent cannot hold a turn forever.
//
// The queue's order is the thread's order: approval requests wait until what was queued
// before them has been sent (barrier), so a client sees item/started before the request.

// DefaultSubscriberQueue is the default Options.SubscriberQueue.
const DefaultSubscriberQueue = 8192

// maxMergedDelta caps the text of one merged delta.
const maxMergedDelta = 64 << 10

type subEntry struct {
	note wire.V2Notification
	// more are deltas merged into note, joined when it is sent (appending to note's
	// string each time would copy the whole text per delta).
	more    []byte
	barrier chan struct{} // closed when the drainer reaches it; note unset
}

// joined is the entry's notification with its merged deltas.
func (e subEntry) joined() wire.V2Notification {
	if len(e.more) == 0 {
		return e.note
	}
	join := func(first string) string {
		var b strings.Builder
		b.Grow(len(first) + len(e.more))
		b.WriteString(first)
		b.Write(e.more)
		return b.String()
	}
	n := e.note
	switch p := n.Params.(type) {
	case wire.V2Delta:
		p.Delta = join(p.Delta)
		n.Params = p
	case wire.V2SummaryDelta:
		p.Delta = join(p.Delta)
		n.Params = p
	case wire.V2ReasoningTextDelta:
		p.Delta = join(p.Delta)
		n.Params = p
	}
	return n
}

type subscriber struct {
	c     *Conn
	limit int

	mu       sync.Mutex
	queue    []subEntry
	stopped  bool
	draining bool          // stop once the queue is empty
	wake     chan struct{} // cap 1: the queue has entries or was stopped
	room     chan struct{} // cap 1: the drainer took an entry
	quit     chan struct{} // closed by stop
}

// newSubscriber starts c's queue for one thread; its drainer lives at most as long as c.
func newSubscriber(c *Conn, limit int) *subscriber {
	if limit <= 0 {
		limit = DefaultSubscriberQueue
	}
	q := &subscriber{c: c, limit: limit, wake: make(chan struct{}, 1), room: make(chan struct{}, 1), quit: make(chan struct{})}
	c.Go(q.run)
	return q
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// push queues a notification; see the type's doc for what happens when the queue is behind.
func (q *subscriber) push(n wire.V2Notification) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.stopped {
			return
		}
		if len(q.queue) >= q.limit/2 && q.mergeLocked(n) {
			return
		}
		if len(q.queue) < q.limit {
			q.queue = append(q.queue, subEntry{note: n})
			signal(q.wake)
			return
		}
		if q.c.dropSlow {
			q.c.log.Warn("closing a client that fell too far behind a thread", "queued", len(q.queue))
			q.stopLocked()
			q.c.Go(q.c.abort) // not on the pump, which holds the thread's send lock
			return
		}
		q.mu.Unlock()
		timeout := q.c.srv.opts.StalledClientTimeout
		stall := time.NewTimer(timeout)
		select {
		case <-q.room:
		case <-q.quit:
		case <-q.c.Context().Done():
		case <-stall.C:
			q.mu.Lock()
			q.c.log.Warn("closing a client that stopped reading", "for", timeout, "queued", len(q.queue))
			q.stopLocked()
			q.c.Go(q.c.abort)
			return
		}
		stall.Stop()
		q.mu.Lock()
		if q.c.Context().Err() != nil {
			q.stopLocked()
		}
	}
}

// mergeLocked appends n's text to the last queued entry when both are deltas of the same
// stream; it reports whether it did.
func (q *subscriber) mergeLocked(n wire.V2Notification) bool {
	if len(q.queue) == 0 {
		return false
	}
	last := &q.queue[len(q.queue)-1]
	if last.barrier != nil || last.note.Method != n.Method {
		return false
	}
	var delta string
	var held int // the queued delta's own text
	switch a := last.note.Params.(type) {
	case wire.V2Delta:
		b, ok := n.Params.(wire.V2Delta)
		if !ok || a.ThreadID != b.ThreadID || a.TurnID != b.TurnID || a.ItemID != b.ItemID {
			return false
		}
		delta, held = b.Delta, len(a.Delta)
	case wire.V2SummaryDelta:
		b, ok := n.Params.(wire.V2SummaryDelta)
		if !ok || a.ThreadID != b.ThreadID || a.TurnID != b.TurnID || a.ItemID != b.ItemID || a.SummaryIndex != b.SummaryIndex {
			return false
		}
		delta, held = b.Delta, len(a.Delta)
	case wire.V2ReasoningTextDelta:
		b, ok := n.Params.(wire.V2ReasoningTextDelta)
		if !ok || a.ThreadID != b.ThreadID || a.TurnID != b.TurnID || a.ItemID != b.ItemID || a.ContentIndex != b.ContentIndex {
			return false
		}
		delta, held = b.Delta, len(a.Delta)
	default:
		return false
	}
	if held+len(last.more)+len(delta) > maxMergedDelta {
		return false
	}
	last.more = append(last.more, delta...)
	return true
}

// barrier returns a channel closed once everything queued before it has been sent (or the
// queue stopped).
func (q *subscriber) barrier() <-chan struct{} {
	ch := make(chan struct{})
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		close(ch)
		return ch
	}
	q.queue = append(q.queue, subEntry{barrier: ch})
	signal(q.wake)
	return ch
}

// stop ends the queue: what is still queued is dropped (the client left the thread).
func (q *subscriber) stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stopLocked()
}

func (q *subscriber) stopLocked() {
	if q.stopped {
		return
	}
	q.stopped = true
	for _, e := range q.queue {
		if e.barrier != nil {
			close(e.barrier)
		}
	}
	q.queue = nil
	close(q.quit)
}

// finish queues the last notifications (thread/closed); the drainer stops once it has sent
// them. It does not wait for a slow client.
func (q *subscriber) finish(last ...wire.V2Notification) {
	for _, n := range last {
		q.push(n)
	}
	q.mu.Lock()
	q.draining = true
	signal(q.wake)
	q.mu.Unlock()
}

// run sends queued notifications in order until the queue stops or the connection ends.
func (q *subscriber) run() {
	for {
		q.mu.Lock()
		if q.stopped {
			q.mu.Unlock()
			return
		}
		if len(q.queue) == 0 {
			if q.draining {
				q.stopLocked()
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
			select {
			case <-q.wake:
			case <-q.quit:
				return
			case <-q.c.Context().Done():
				q.stop()
				return
			}
			continue
		}
		e := q.queue[0]
		q.queue[0] = subEntry{}
		q.queue = q.queue[1:]
		q.mu.Unlock()
		signal(q.room)
		if e.barrier != nil {
			close(e.barrier)
			continue
		}
		n := e.joined()
		_ = q.c.Notify(q.c.Context(), n.Method, n.WireParams())
	}
}

type broadcastKey struct{}

// broadcast is c's queue for notifications about threads it is not subscribed to
// (thread/started, thread/status/changed, thread/closed): they keep their order and a
// stalled client holds up only itself, as with a subscription.
func (c *Conn) broadcast() *subscriber {
	c.mu.Lock()
	q, _ := c.values[broadcastKey{}].(*subscriber)
	c.mu.Unlock()
	if q != nil {
		return q
	}
	nq := newSubscriber(c, c.srv.opts.SubscriberQueue) // not under c.mu: Go takes it
	c.mu.Lock()
	defer c.mu.Unlock()
	if q, _ := c.values[broadcastKey{}].(*subscriber); q != nil {
		nq.stop()
		return q
	}
	c.values[broadcastKey{}] = nq
	return nq
}
