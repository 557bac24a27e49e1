package agent

import (
	"sync"

	"github.com/gocodex/gocodex/protocol"
)

// history is the conversation as the model sees it. The loop and the running turn both
// append to it, so it has its own lock; the turn checks that it has not been aborted before
// appending (see turn.record).
type history struct {
	mu    sync.Mutex
	items []protocol.ResponseItem
}

func (h *history) append(items ...protocol.ResponseItem) {
	h.mu.Lock()
	h.items = append(h.items, items...)
	h.mu.Unlock()
}

// snapshot returns a copy safe to hand to the model client.
func (h *history) snapshot() []protocol.ResponseItem {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]protocol.ResponseItem(nil), h.items...)
}

func (h *history) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.items)
}
