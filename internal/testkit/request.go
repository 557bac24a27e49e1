package testkit

import (
	"bytes"
	"encoding/json"
)

// Input returns the request's `input` items as generic JSON objects.
func (r Request) Input() []map[string]any {
	var body struct {
		Input []map[string]any `json:"input"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if dec.Decode(&body) != nil {
		return nil
	}
	return body.Input
}

// ToolOutput finds the function_call_output or custom_tool_call_output answering callID and
// returns its `output` (a string, or the content items as []any).
func (r Request) ToolOutput(callID string) (any, bool) {
	for _, it := range r.Input() {
		t, _ := it["type"].(string)
		if (t == "function_call_output" || t == "custom_tool_call_output") && it["call_id"] == callID {
			return it["output"], true
		}
	}
	return nil, false
}

// MessageTexts returns the text parts of the input messages with the given role, in order.
func (r Request) MessageTexts(role string) []string {
	var out []string
	for _, it := range r.Input() {
		if it["type"] != "message" || it["role"] != role {
			continue
		}
		parts, _ := it["content"].([]any)
		for _, p := range parts {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
