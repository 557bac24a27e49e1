package mcp

import (
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// Relay carries the manager's startup events to a consumer that appears later (the thread,
// which exists only after the servers have started starting): events are kept until Attach,
// then delivered in order, and go straight through afterwards.
type Relay struct {
	mu      sync.Mutex
	pending []protocol.EventMsg
	emit    func(protocol.EventMsg)
}

// Emit is Options.OnEvent.
func (r *Relay) Emit(ev protocol.EventMsg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.emit == nil {
		r.pending = append(r.pending, ev)
		return
	}
	r.emit(ev)
}

// Attach delivers the kept events to emit and every later one; nil detaches (events are
// dropped from then on).
func (r *Relay) Attach(emit func(protocol.EventMsg)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if emit == nil {
		r.emit = func(protocol.EventMsg) {}
		r.pending = nil
		return
	}
	for _, ev := range r.pending {
		emit(ev)
	}
	r.pending = nil
	r.emit = emit
}
