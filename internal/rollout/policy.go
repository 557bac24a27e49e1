package rollout

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// persistedEvents are the event types a rollout keeps: what a resumed thread needs to show
// its past (messages, reasoning, usage, turn boundaries) and the markers that change its
// history (compaction, rollback). Streaming deltas, tool begin/end pairs and approvals are
// not kept; the response items hold what the model saw of them.
var persistedEvents = map[string]bool{
	"user_message":                true,
	"agent_message":               true,
	"agent_reasoning":             true,
	"agent_reasoning_raw_content": true,
	"token_count":                 true,
	"thread_name_updated":         true,
	"context_compacted":           true,
	"entered_review_mode":         true,
	"exited_review_mode":          true,
	"thread_rolled_back":          true,
	"undo_completed":              true,
	"turn_aborted":                true,
	"task_started":                true,
	"task_complete":               true,
	"image_generation_end":        true,
	"item_completed":              true,
}

// persistedThreadItems are the item_completed kinds Codex 0.169 writes (it persists plans,
// and the user and agent messages that replace the older user_message/agent_message events).
var persistedThreadItems = map[string]bool{"Plan": true, "UserMessage": true, "AgentMessage": true}

// Persisted reports whether an event of this kind belongs in the rollout.
func Persisted(msg protocol.EventMsg) bool {
	if msg == nil {
		return false
	}
	typ := msg.EventType()
	if !persistedEvents[typ] {
		return false
	}
	if ic, ok := msg.(protocol.ItemCompletedEvent); ok {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(ic.Item, &head)
		return persistedThreadItems[head.Type]
	}
	return true
}
