package jsonrpc

import (
	"context"
	"sync"
)

// afterReply holds what runs once a request's answer is queued.
type afterReply struct {
	mu   sync.Mutex
	fns  []func()
	done bool // the answer is queued: later registrations run at once
}

type afterReplyKey struct{}

// AfterReply runs f right after the answer to ctx's request is queued, in the goroutine
// that queued it, while the connection holds back new requests. Notifications f sends
// therefore come straight after the answer, ahead of anything a later request causes.
// (context.AfterFunc runs f in a goroutine of its own, which under load may be scheduled
// after the client's next request is served.) f must not wait for the client.
// Registered after the answer, f runs at once; outside a request's ctx, or when the request
// ends without an answer (the connection closed), f runs when ctx ends, as with
// context.AfterFunc.
func AfterReply(ctx context.Context, f func()) {
	a, ok := ctx.Value(afterReplyKey{}).(*afterReply)
	if !ok {
		context.AfterFunc(ctx, f)
		return
	}
	a.mu.Lock()
	if a.done {
		a.mu.Unlock()
		f()
		return
	}
	a.fns = append(a.fns, f)
	a.mu.Unlock()
}

// pending reports whether something waits to run after the answer.
func (a *afterReply) pending() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.fns) > 0
}

// run runs what was registered, once; later registrations run at once.
func (a *afterReply) run() {
	a.mu.Lock()
	fns := a.fns
	a.fns, a.done = nil, true
	a.mu.Unlock()
	for _, f := range fns {
		f()
	}
}
