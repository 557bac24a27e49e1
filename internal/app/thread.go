package app

import (
	"context"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/protocol"
)

// Thread is what a face holds of a thread the host started (StartThread's thread satisfies
// it): it submits operations and reads events, and nothing of the engine behind them.
type Thread interface {
	ID() string
	// Submit queues op under a fresh submission id; SubmitWithID under the face's own.
	Submit(op protocol.Op) (string, error)
	SubmitWithID(id string, op protocol.Op) error
	// NextEvent waits for the thread's next event; ErrThreadClosed once the last was read.
	NextEvent(ctx context.Context) (protocol.Event, error)
	// Done is closed when the thread has ended.
	Done() <-chan struct{}
	// BackgroundTerminals are the thread's unified-exec processes still running.
	BackgroundTerminals() agent.BackgroundTerminals
}

// ErrThreadClosed is what a Thread's Submit returns after shutdown and its NextEvent once the
// last event was read: the end of the thread, not a failure.
var ErrThreadClosed = agent.ErrThreadClosed

var _ Thread = (*agent.Thread)(nil)
