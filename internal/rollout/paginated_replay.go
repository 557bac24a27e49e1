package rollout

import (
	"encoding/json"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// itemReader turns the item_completed events of the paginated form back into the events
// the faces replay (user_message, agent_message, agent_reasoning…), so a thread reads the
// same whichever form it was written in. A Reasoning item written again under its id gives
// only its new parts; a message item written again gives nothing more.
type itemReader struct {
	seen      map[string]bool
	reasoning map[string][2]int // parts already given: summary, raw
}

// events returns the events an item_completed payload stands for; ok is false for other
// payloads and for items of other kinds (plans, compactions, commands), which are replayed
// as they are.
func (r *itemReader) events(payload []byte) (out []protocol.EventMsg, ok bool) {
	head, ok := completedItemOf(payload)
	if !ok || head.Type != "item_completed" {
		return nil, false
	}
	if r.seen == nil {
		r.seen, r.reasoning = map[string]bool{}, map[string][2]int{}
	}
	switch peekType(head.Item) {
	case "UserMessage":
		it, err := decodeOr(head.Item, decodeUserMessageItem)
		if err != nil {
			return nil, false
		}
		if r.once(it.ID) {
			out = append(out, userEventOf(it))
		}
		return out, true
	case "AgentMessage":
		it, err := decodeOr(head.Item, decodeAgentMessageItem)
		if err != nil {
			return nil, false
		}
		if r.once(it.ID) {
			var text strings.Builder
			for _, c := range it.Content {
				text.WriteString(c.Text)
			}
			out = append(out, protocol.AgentMessageEvent{Message: text.String(), Phase: it.Phase})
		}
		return out, true
	case "Reasoning":
		var it reasoningItem
		if json.Unmarshal(head.Item, &it) != nil {
			return nil, false
		}
		done := r.reasoning[it.ID]
		for _, s := range it.SummaryText[min(done[0], len(it.SummaryText)):] {
			out = append(out, protocol.AgentReasoningEvent{Text: s})
		}
		for _, s := range it.RawContent[min(done[1], len(it.RawContent)):] {
			out = append(out, protocol.AgentReasoningRawContentEvent{Text: s})
		}
		if it.ID != "" {
			r.reasoning[it.ID] = [2]int{max(done[0], len(it.SummaryText)), max(done[1], len(it.RawContent))}
		}
		return out, true
	case "CommandExecution", "FileChange":
		// Kept for Codex; the older form never had them, so replays leave them out.
		return nil, true
	}
	return nil, false
}

// completedItem is the part of an item_completed payload the replay reads.
type completedItem struct {
	Type string          `json:"type"`
	Item json.RawMessage `json:"item"`
}

// completedItemOf reads payload's type and item in one validating pass when they are plain
// (each once, the type a string without escapes), and with encoding/json otherwise, which
// then decides as it always did; ok is false for a payload that is not valid JSON.
func completedItemOf(payload []byte) (head completedItem, ok bool) {
	fast := members(payload, completedItemKeys, func(k int, v []byte) bool {
		if k == 0 {
			head.Type, ok = plainString(v)
			return ok
		}
		head.Item = v[:len(v):len(v)]
		return true
	})
	if fast {
		return head, true
	}
	head = completedItem{}
	return head, json.Unmarshal(payload, &head) == nil
}

var completedItemKeys = []string{"type", "item"}

// once reports whether the item id is new (items without an id always are).
func (r *itemReader) once(id string) bool {
	if id == "" {
		return true
	}
	if r.seen[id] {
		return false
	}
	r.seen[id] = true
	return true
}

func userEventOf(it userMessageItem) protocol.UserMessageEvent {
	var ev protocol.UserMessageEvent
	var texts []string
	for _, c := range it.Content {
		switch c.Type {
		case "text":
			if c.Text != nil {
				texts = append(texts, *c.Text)
			}
			ev.TextElements = append(ev.TextElements, c.TextElements...)
		case "image":
			ev.Images = append(ev.Images, c.ImageURL)
		case "local_image":
			ev.LocalImages = append(ev.LocalImages, c.Path)
		}
	}
	ev.Message = strings.Join(texts, "\n")
	return ev
}
