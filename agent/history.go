package agent

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// history is the conversation as the model sees it. The loop and the running turn both
// append to it, so it has its own lock; the turn checks that it has not been aborted before
// appending (see turn.record).
type history struct {
	mu    sync.Mutex
	items []protocol.ResponseItem
	// counted is how many leading items the last response's token usage already covers:
	// everything up to the last item the model produced (or the whole history right after
	// a compaction). Items after it are estimated.
	counted int
}

func (h *history) append(items ...protocol.ResponseItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, it := range items {
		h.items = append(h.items, it)
		if modelGenerated(it) {
			h.counted = len(h.items)
		}
	}
}

// replace swaps the whole history (compaction, rollback); the usage set with it covers the
// new items.
func (h *history) replace(items []protocol.ResponseItem) {
	h.mu.Lock()
	h.items = items
	h.counted = len(items)
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

// uncountedTokens estimates the items the last response's usage does not cover.
func (h *history) uncountedTokens() int64 {
	h.mu.Lock()
	rest := append([]protocol.ResponseItem(nil), h.items[min(h.counted, len(h.items)):]...)
	h.mu.Unlock()
	return estimateTokens(rest)
}

// modelGenerated reports whether an item came out of a model response, so the response's
// reported usage already counts it.
func modelGenerated(it protocol.ResponseItem) bool {
	switch it := it.(type) {
	case protocol.MessageItem:
		return it.Role == "assistant"
	case protocol.ReasoningItem, protocol.FunctionCallItem, protocol.CustomToolCallItem,
		protocol.LocalShellCallItem, protocol.WebSearchCallItem, protocol.CompactionItem:
		return true
	}
	return false
}

// imageTokenEstimate stands in for an inline image: its data URL says nothing about how many
// tokens the model spends on it, and counting the base64 bytes would trigger compaction for
// one screenshot.
const imageTokenEstimate = 1500

// estimateTokens is the usual four-bytes-per-token guess over the items' JSON, with inline
// images counted at a flat rate.
func estimateTokens(items []protocol.ResponseItem) int64 {
	var bytes, extra int64
	for _, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			continue
		}
		bytes += int64(len(data))
		if m, ok := it.(protocol.MessageItem); ok {
			for _, c := range m.Content {
				if c.Type == protocol.ContentInputImage {
					bytes -= int64(len(c.ImageURL))
					extra += imageTokenEstimate
				}
			}
		}
	}
	return (max(bytes, 0)+3)/4 + extra
}

// messageText joins the text parts of a message.
func messageText(m protocol.MessageItem) string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == protocol.ContentInputText || c.Type == protocol.ContentOutputText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// userTurnText returns the text of a message the user typed, where a user turn starts; ok
// is false for everything else (assistant and developer messages, the context we inject,
// compaction summaries). An image-only message is a turn with no text. The rule matches
// the rollout's, so a live rollback and a resumed one cut at the same place.
func userTurnText(it protocol.ResponseItem) (string, bool) {
	m, ok := it.(protocol.MessageItem)
	if !ok || m.Role != "user" {
		return "", false
	}
	for _, c := range m.Content {
		if c.Type == protocol.ContentInputText && prompt.IsContextualUserText(c.Text) {
			return "", false
		}
	}
	return messageText(m), true
}

// dropLastUserTurns removes the last n user turns: everything from the n-th last message
// the user typed to the end. Context recorded before that message stays, so what the model
// was told about its environment still holds. It returns how many turns were dropped.
func (h *history) dropLastUserTurns(n int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	dropped, cut := 0, len(h.items)
	for i := len(h.items) - 1; i >= 0 && dropped < n; i-- {
		if _, ok := userTurnText(h.items[i]); ok {
			dropped++
			cut = i
		}
	}
	if dropped == 0 {
		return 0
	}
	clear(h.items[cut:])
	h.items = h.items[:cut]
	// The caller resets the usage to an estimate of what is left.
	h.counted = cut
	return dropped
}
