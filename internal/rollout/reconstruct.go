package rollout

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// Resumed is what a thread starts from when it resumes a rollout.
type Resumed struct {
	Meta SessionMeta
	// History is the model's history: the response items, with compactions and rollbacks
	// applied.
	History []protocol.ResponseItem
	// TokenUsage is the last token_count's info, if any.
	TokenUsage *protocol.TokenUsageInfo
	// TurnContext is the last turn's settings, if any turn ran.
	TurnContext *TurnContext
	// Warnings are the reader's warnings plus lines whose payload could not be decoded.
	Warnings []string
}

// Reconstruct rebuilds the thread state from the rollout's lines, in order: response items
// append to history, a compacted line replaces it, a thread_rolled_back event drops the last
// turns. Lines of kinds this version does not know are skipped. Tool calls left without an
// output (a crash while a tool ran) get an "aborted" one, so the model accepts the history.
// The lines are decoded once per Rollout; callers get their own slices (Lines must not
// change after the first call).
func (r *Rollout) Reconstruct() Resumed {
	r.reconstructOnce.Do(func() { r.resumed = r.reconstruct() })
	res := r.resumed
	res.History = slices.Clone(res.History)
	res.Warnings = slices.Clone(res.Warnings)
	return res
}

func (r *Rollout) reconstruct() Resumed {
	res := Resumed{Meta: r.Meta, Warnings: append([]string(nil), r.Warnings...)}
	warn := func(i int, l Line, err error) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s line %d skipped: %v", l.Type, i+1, err))
	}
	lastTokenCount := -1
	for i, l := range r.Lines {
		switch l.Type {
		case TypeResponseItem:
			it, err := decodeItem(l.Payload)
			if err != nil {
				warn(i, l, err)
				continue
			}
			res.History = append(res.History, it)
		case TypeCompacted:
			var c Compacted
			if err := json.Unmarshal(l.Payload, &c); err != nil {
				warn(i, l, err)
				continue
			}
			hist, err := compactedHistory(res.History, c)
			if err != nil {
				warn(i, l, err)
				continue
			}
			res.History = hist
		case TypeEventMsg:
			// Only two kinds of event matter here; the tag is peeked so the others (most
			// lines of a long thread) are not decoded.
			switch peekType(l.Payload) {
			case "thread_rolled_back":
				var m protocol.ThreadRolledBackEvent
				if err := json.Unmarshal(l.Payload, &m); err != nil {
					warn(i, l, err)
					continue
				}
				res.History = DropLastTurns(res.History, m.NumTurns)
			case "token_count":
				lastTokenCount = i
			}
		}
	}
	res.History = normalize(res.History)
	res.TurnContext = lastTurnContext(r.Lines)
	if lastTokenCount >= 0 {
		var m protocol.TokenCountEvent
		if json.Unmarshal(r.Lines[lastTokenCount].Payload, &m) == nil && m.Info != nil {
			res.TokenUsage = m.Info
		}
	}
	return res
}

// lastTurnContext is the last turn_context that decodes: only the last turn's settings are
// kept, so the earlier ones are not decoded. Newer Codex versions write policy shapes of
// their own; the settings are informational, the history does not depend on them.
func lastTurnContext(lines []Line) *TurnContext {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Type != TypeTurnContext {
			continue
		}
		var tc TurnContext
		if json.Unmarshal(lines[i].Payload, &tc) == nil {
			return &tc
		}
	}
	return nil
}

// InitialMessages are the rollout's persisted events in order, for a face to replay the
// past (Codex sends them as session_configured.initial_messages). Kinds this version does
// not know are left out. The thread items of the paginated form come back as the events
// they stand for (user_message, agent_message, agent_reasoning), so faces replay both forms
// alike.
// They are decoded once per Rollout; each caller gets its own slice.
func (r *Rollout) InitialMessages() []protocol.EventMsg {
	r.messagesOnce.Do(func() { r.messages = r.initialMessages() })
	return slices.Clone(r.messages)
}

func (r *Rollout) initialMessages() []protocol.EventMsg {
	var out []protocol.EventMsg
	var items itemReader
	for _, l := range r.Lines {
		if l.Type != TypeEventMsg {
			continue
		}
		tag := peekType(l.Payload)
		if tag == "item_completed" {
			if msgs, ok := items.events(l.Payload); ok {
				out = append(out, msgs...)
				continue
			}
		}
		if msg, ok := decodeEvent(tag, l.Payload); ok {
			out = append(out, msg)
			continue
		}
		if msg, err := protocol.DecodeEventMsg(l.Payload); err == nil {
			out = append(out, msg)
		}
	}
	return out
}

// peekType returns the "type" of a payload (every event and item is internally tagged);
// "" when it has none (the caller then treats it as uninteresting or decodes it fully).
func peekType(payload []byte) string {
	t, _ := protocol.PeekTag(payload, "type")
	return t
}

// compactedHistory is the history after a compacted line.
func compactedHistory(hist []protocol.ResponseItem, c Compacted) ([]protocol.ResponseItem, error) {
	if c.ReplacementHistory != nil {
		out := make([]protocol.ResponseItem, 0, len(c.ReplacementHistory))
		for _, raw := range c.ReplacementHistory {
			it, err := protocol.DecodeResponseItem(raw)
			if err != nil {
				return nil, fmt.Errorf("replacement history: %w", err)
			}
			out = append(out, it)
		}
		return out, nil
	}
	// Older rollouts carry only the summary: keep what the user said, then the summary.
	var out []protocol.ResponseItem
	for _, it := range hist {
		if m, ok := it.(protocol.MessageItem); ok && m.Role == "user" {
			out = append(out, m)
		}
	}
	out = append(out, protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: c.Message}}})
	return out, nil
}

// IsUserTurnStart reports whether it is a message the user typed (not one of the contextual
// user messages we inject): the first item of a user turn.
func IsUserTurnStart(it protocol.ResponseItem) bool {
	m, ok := it.(protocol.MessageItem)
	if !ok || m.Role != "user" {
		return false
	}
	for _, c := range m.Content {
		if c.Type == protocol.ContentInputText && prompt.IsContextualUserText(c.Text) {
			return false
		}
	}
	return true
}

// DropLastTurns returns items without their last n user turns: everything from the n-th
// last message the user typed onward. With n at least the number of turns, only what came
// before the first turn (the initial context) is left; n <= 0 changes nothing. items is not
// modified. The engine calls it for thread_rollback, and resume applies it for every
// thread_rolled_back event in a rollout.
func DropLastTurns(items []protocol.ResponseItem, n int) []protocol.ResponseItem {
	if n <= 0 {
		return items
	}
	cut := len(items)
	for i := len(items) - 1; i >= 0 && n > 0; i-- {
		if IsUserTurnStart(items[i]) {
			cut = i
			n--
		}
	}
	return items[:cut:cut]
}

// decodeItem decodes a response item. The kinds that make up nearly all of a long thread
// take protocol's one-pass decoder (it validates while it scans), their wire id cleared as
// encoding/json leaves it; whatever that decoder does not give as the kind's own type (an
// error, an output without a call id) is decoded by encoding/json, as it always was here,
// so results and errors stay the same. Other kinds go through protocol.DecodeResponseItem.
func decodeItem(payload []byte) (protocol.ResponseItem, error) {
	switch peekType(payload) {
	case "message":
		if m, ok := decodeAs[protocol.MessageItem](payload); ok {
			m.ID = ""
			return m, nil
		}
		return unmarshalItem[protocol.MessageItem](payload)
	case "function_call":
		if m, ok := decodeAs[protocol.FunctionCallItem](payload); ok {
			m.ID = ""
			return m, nil
		}
		return unmarshalItem[protocol.FunctionCallItem](payload)
	case "function_call_output":
		if m, ok := decodeAs[protocol.FunctionCallOutputItem](payload); ok {
			return m, nil
		}
		return unmarshalItem[protocol.FunctionCallOutputItem](payload)
	case "custom_tool_call":
		if m, ok := decodeAs[protocol.CustomToolCallItem](payload); ok {
			m.ID = ""
			return m, nil
		}
		return unmarshalItem[protocol.CustomToolCallItem](payload)
	case "custom_tool_call_output":
		if m, ok := decodeAs[protocol.CustomToolCallOutputItem](payload); ok {
			return m, nil
		}
		return unmarshalItem[protocol.CustomToolCallOutputItem](payload)
	case "reasoning":
		if m, ok := decodeAs[protocol.ReasoningItem](payload); ok {
			m.ID = ""
			return m, nil
		}
		return unmarshalItem[protocol.ReasoningItem](payload)
	}
	return protocol.DecodeResponseItem(payload)
}

// decodeAs is protocol's decoding of payload when it gives a T.
func decodeAs[T protocol.ResponseItem](payload []byte) (T, bool) {
	it, err := protocol.DecodeResponseItem(payload)
	if err != nil {
		var zero T
		return zero, false
	}
	m, ok := it.(T)
	return m, ok
}

// unmarshalItem is encoding/json's decoding of payload as a T.
func unmarshalItem[T protocol.ResponseItem](payload []byte) (protocol.ResponseItem, error) {
	var m T
	err := json.Unmarshal(payload, &m)
	return m, err
}
