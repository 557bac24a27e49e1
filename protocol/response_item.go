package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ResponseItem is one item of the conversation as the Responses API and the rollout see it.
// The concrete types are the *Item structs of this file; OtherItem keeps anything unknown.
type ResponseItem interface {
	ItemType() string
	isResponseItem()
}

// MessageItem is a chat message (user, assistant, developer, system).
type MessageItem struct {
	// ID is read from the wire but never written (Codex skips it).
	ID      string        `json:"-"`
	Role    string        `json:"role"`
	Content []ContentItem `json:"content"`
	EndTurn *bool         `json:"end_turn,omitempty"`
	// Phase marks assistant messages as "commentary" or "final_answer" when the model says so.
	Phase string `json:"phase,omitempty"`
}

// ReasoningSummary is one `summary_text` part of a reasoning item.
type ReasoningSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ReasoningContent is one part of a reasoning item's raw content (`reasoning_text` or `text`).
type ReasoningContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ReasoningItem is the model's reasoning: summaries, optional raw content, and the encrypted
// blob that is sent back on the next request.
type ReasoningItem struct {
	ID               string             `json:"-"`
	Summary          []ReasoningSummary `json:"summary"`
	Content          []ReasoningContent `json:"content,omitempty"`
	EncryptedContent *string            `json:"encrypted_content"`
}

// FunctionCallItem is a call of a JSON-schema tool.
type FunctionCallItem struct {
	ID        string `json:"-"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
}

// FunctionCallOutputItem answers a function call (and local_shell_call).
type FunctionCallOutputItem struct {
	CallID string                    `json:"call_id"`
	Output FunctionCallOutputPayload `json:"output"`
}

// CustomToolCallItem is a call of a freeform tool (apply_patch's grammar form).
type CustomToolCallItem struct {
	ID     string `json:"-"`
	Status string `json:"status,omitempty"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Input  string `json:"input"`
}

// CustomToolCallOutputItem answers a custom tool call.
type CustomToolCallOutputItem struct {
	CallID string                    `json:"call_id"`
	Output FunctionCallOutputPayload `json:"output"`
}

// LocalShellAction is the `exec` action of a local_shell_call.
type LocalShellAction struct {
	Type             string            `json:"type"`
	Command          []string          `json:"command"`
	TimeoutMs        *uint64           `json:"timeout_ms"`
	WorkingDirectory *string           `json:"working_directory"`
	Env              map[string]string `json:"env"`
	User             *string           `json:"user"`
}

// LocalShellCallItem is the built-in local shell tool's call.
type LocalShellCallItem struct {
	ID     string           `json:"-"`
	CallID *string          `json:"call_id"`
	Status string           `json:"status"`
	Action LocalShellAction `json:"action"`
}

// WebSearchCallItem records a hosted web search; Action is kept raw. Unlike the other
// items' ids, its id is written (to the rollout and back to the model), as Codex 0.169
// writes it: the Responses API rejects a web_search_call input item without one.
type WebSearchCallItem struct {
	ID     string          `json:"id,omitempty"`
	Status *string         `json:"status,omitempty"`
	Action json.RawMessage `json:"action,omitempty"`
}

// CompactionItem carries the server-side compaction summary.
type CompactionItem struct {
	EncryptedContent string `json:"encrypted_content"`
}

// OtherItem is any item whose type we do not model; Raw is written back unchanged.
type OtherItem struct {
	Raw json.RawMessage
}

func (MessageItem) ItemType() string              { return "message" }
func (ReasoningItem) ItemType() string            { return "reasoning" }
func (FunctionCallItem) ItemType() string         { return "function_call" }
func (FunctionCallOutputItem) ItemType() string   { return "function_call_output" }
func (CustomToolCallItem) ItemType() string       { return "custom_tool_call" }
func (CustomToolCallOutputItem) ItemType() string { return "custom_tool_call_output" }
func (LocalShellCallItem) ItemType() string       { return "local_shell_call" }
func (WebSearchCallItem) ItemType() string        { return "web_search_call" }
func (CompactionItem) ItemType() string           { return "compaction" }

// ItemType returns the raw item's "type", or "other".
func (o OtherItem) ItemType() string {
	if t, err := readTag(o.Raw, "type"); err == nil {
		return t
	}
	return "other"
}

func (MessageItem) isResponseItem()              {}
func (ReasoningItem) isResponseItem()            {}
func (FunctionCallItem) isResponseItem()         {}
func (FunctionCallOutputItem) isResponseItem()   {}
func (CustomToolCallItem) isResponseItem()       {}
func (CustomToolCallOutputItem) isResponseItem() {}
func (LocalShellCallItem) isResponseItem()       {}
func (WebSearchCallItem) isResponseItem()        {}
func (CompactionItem) isResponseItem()           {}
func (OtherItem) isResponseItem()                {}

// The common variants write themselves through the appenders of append.go; see there.

func (i MessageItem) MarshalJSON() ([]byte, error)            { return AppendResponseItem(nil, i) }
func (i ReasoningItem) MarshalJSON() ([]byte, error)          { return AppendResponseItem(nil, i) }
func (i FunctionCallItem) MarshalJSON() ([]byte, error)       { return AppendResponseItem(nil, i) }
func (i FunctionCallOutputItem) MarshalJSON() ([]byte, error) { return AppendResponseItem(nil, i) }
func (i CustomToolCallItem) MarshalJSON() ([]byte, error)     { return AppendResponseItem(nil, i) }
func (i CustomToolCallOutputItem) MarshalJSON() ([]byte, error) {
	return AppendResponseItem(nil, i)
}

func (i LocalShellCallItem) MarshalJSON() ([]byte, error) {
	type plain LocalShellCallItem
	return marshalTagged("type", i.ItemType(), plain(i))
}

func (i WebSearchCallItem) MarshalJSON() ([]byte, error) {
	type plain WebSearchCallItem
	return marshalTagged("type", i.ItemType(), plain(i))
}

func (i CompactionItem) MarshalJSON() ([]byte, error) { return AppendResponseItem(nil, i) }

// MarshalJSON writes Raw unchanged.
func (o OtherItem) MarshalJSON() ([]byte, error) {
	if len(o.Raw) == 0 {
		return []byte(`{"type":"other"}`), nil
	}
	return o.Raw, nil
}

// DecodeResponseItem reads one response item; an unknown type becomes an OtherItem.
//
// The tag is found by a short top-level scan (Codex writes it first); the variant, its id
// included, is then decoded in a single json.Unmarshal.
//
// A function_call_output with no call id answers no call: it is a context item of Codex's
// own (its thread goal's "goal_objective", with a name and a namespace) and is kept as an
// OtherItem, written back as read, so that nothing takes it for a lost call's output.
func DecodeResponseItem(data []byte) (ResponseItem, error) {
	tag, err := readTag(data, "type")
	if err != nil {
		return nil, fmt.Errorf("response item: %w", err)
	}
	it, ok := decodeItemFast(tag, data)
	if !ok {
		if it, err = decodeResponseItemSlow(tag, data); err != nil {
			return nil, err
		}
	}
	if out, isOut := it.(FunctionCallOutputItem); isOut && out.CallID == "" {
		return OtherItem{Raw: bytes.Clone(data)}, nil
	}
	return it, nil
}

// decodeResponseItemSlow is the general path: encoding/json into the variant's struct.
func decodeResponseItemSlow(tag string, data []byte) (ResponseItem, error) {
	switch tag {
	case "message":
		type plain MessageItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("message item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return MessageItem(w.plain), nil
	case "reasoning":
		type plain ReasoningItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("reasoning item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return ReasoningItem(w.plain), nil
	case "function_call":
		type plain FunctionCallItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("function_call item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return FunctionCallItem(w.plain), nil
	case "function_call_output":
		type plain FunctionCallOutputItem
		var p plain
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("function_call_output item: %w", err)
		}
		return FunctionCallOutputItem(p), nil
	case "custom_tool_call":
		type plain CustomToolCallItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("custom_tool_call item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return CustomToolCallItem(w.plain), nil
	case "custom_tool_call_output":
		type plain CustomToolCallOutputItem
		var p plain
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("custom_tool_call_output item: %w", err)
		}
		return CustomToolCallOutputItem(p), nil
	case "local_shell_call":
		type plain LocalShellCallItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("local_shell_call item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return LocalShellCallItem(w.plain), nil
	case "web_search_call":
		type plain WebSearchCallItem
		var w struct {
			plain
			ID lenientString `json:"id"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("web_search_call item: %w", err)
		}
		w.plain.ID = string(w.ID)
		return WebSearchCallItem(w.plain), nil
	case "compaction", "compaction_summary":
		type plain CompactionItem
		var p plain
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("compaction item: %w", err)
		}
		return CompactionItem(p), nil
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("response item %s: invalid JSON", tag)
	}
	return OtherItem{Raw: bytes.Clone(data)}, nil
}

// lenientString reads an item's "id": a string is kept, anything else (a number, null)
// leaves it unchanged without failing the item, as ids are informational.
type lenientString string

func (s *lenientString) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var v string
		if err := json.Unmarshal(data, &v); err == nil {
			*s = lenientString(v)
		}
	}
	return nil
}

// FunctionCallOutputPayload is a tool's answer: plain text, or structured content items.
// On the wire it is a string when ContentItems is nil, an array otherwise. Success is local
// knowledge and never written.
type FunctionCallOutputPayload struct {
	Content      string
	ContentItems []ContentItem
	Success      *bool
}

// MarshalJSON writes the string or array form.
func (p FunctionCallOutputPayload) MarshalJSON() ([]byte, error) {
	return p.appendJSON(nil)
}

// UnmarshalJSON reads a string, an array of content items, or the old
// {"content":...,"success":...} object.
func (p *FunctionCallOutputPayload) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return fmt.Errorf("function call output: empty")
	}
	switch data[0] {
	case '"':
		if s, ok := unquoteSimple(data); ok {
			*p = FunctionCallOutputPayload{Content: s}
			return nil
		}
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*p = FunctionCallOutputPayload{Content: s}
		return nil
	case '[':
		var items []ContentItem
		if err := json.Unmarshal(data, &items); err != nil {
			return err
		}
		if items == nil {
			items = []ContentItem{}
		}
		*p = FunctionCallOutputPayload{ContentItems: items}
		return nil
	case '{':
		var w struct {
			Content string `json:"content"`
			Success *bool  `json:"success"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*p = FunctionCallOutputPayload{Content: w.Content, Success: w.Success}
		return nil
	}
	return fmt.Errorf("function call output: expected a string or an array")
}
