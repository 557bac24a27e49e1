package testkit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Event is one SSE event of a scripted response. Data is the JSON payload (it carries the
// same "type"); Repeat > 1 sends it that many times (load tests).
type Event struct {
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data"`
	Repeat int             `json:"repeat,omitempty"`
}

// Part is what SSE accepts: one Event or several (Events).
type Part interface{ events() []Event }

// Events is a sequence of events usable as one Part.
type Events []Event

func (e Event) events() []Event  { return []Event{e} }
func (e Events) events() []Event { return e }

// Raw builds an event from any JSON-marshalable payload; the payload's "type" should match.
func Raw(typ string, payload any) Event {
	data, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("testkit: marshal %s: %v", typ, err))
	}
	return Event{Type: typ, Data: data}
}

type obj = map[string]any

func ev(typ string, fields obj) Event {
	fields["type"] = typ
	return Raw(typ, fields)
}

// Created is response.created.
func Created() Event {
	return ev("response.created", obj{"response": obj{"id": "resp_mock"}})
}

// TextDelta is one response.output_text.delta of the message item msg_mock.
func TextDelta(delta string) Event {
	return ev("response.output_text.delta", obj{"item_id": "msg_mock", "output_index": 0, "content_index": 0, "delta": delta})
}

// AssistantMessage is the finished assistant message item (response.output_item.done).
func AssistantMessage(id, text string) Event {
	return ev("response.output_item.done", obj{"output_index": 0, "item": messageItem(id, text)})
}

func messageItem(id, text string) obj {
	return obj{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []obj{{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// AssistantMessageStream is a message as servers stream it: item added, one delta per chunk,
// item done with the joined text.
func AssistantMessageStream(id string, chunks ...string) Events {
	out := Events{ev("response.output_item.added", obj{"output_index": 0, "item": obj{
		"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}})}
	var text strings.Builder
	for _, c := range chunks {
		out = append(out, ev("response.output_text.delta", obj{"item_id": id, "output_index": 0, "content_index": 0, "delta": c}))
		text.WriteString(c)
	}
	return append(out, AssistantMessage(id, text.String()))
}

// Reasoning is a reasoning item with summary sections: item added, for each section a
// summary_part.added and one summary_text.delta, then the finished item.
func Reasoning(id string, summary ...string) Events {
	out := Events{ev("response.output_item.added", obj{"output_index": 0, "item": obj{
		"type": "reasoning", "id": id, "summary": []any{}}})}
	parts := []obj{}
	for i, s := range summary {
		out = append(out,
			ev("response.reasoning_summary_part.added", obj{"item_id": id, "output_index": 0, "summary_index": i,
				"part": obj{"type": "summary_text", "text": ""}}),
			ev("response.reasoning_summary_text.delta", obj{"item_id": id, "output_index": 0, "summary_index": i, "delta": s}))
		parts = append(parts, obj{"type": "summary_text", "text": s})
	}
	return append(out, ev("response.output_item.done", obj{"output_index": 0, "item": obj{
		"type": "reasoning", "id": id, "summary": parts, "encrypted_content": "enc_" + id}}))
}

// ReasoningText is a raw reasoning content delta (response.reasoning_text.delta).
func ReasoningText(itemID string, index int, delta string) Event {
	return ev("response.reasoning_text.delta", obj{"item_id": itemID, "output_index": 0, "content_index": index, "delta": delta})
}

// FunctionCall is a finished function_call item; args is the JSON argument string.
func FunctionCall(callID, name, args string) Event {
	return ev("response.output_item.done", obj{"output_index": 0, "item": obj{
		"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": name, "arguments": args, "status": "completed"}})
}

// CustomToolCall is a freeform tool call: item added, one input delta, item done.
func CustomToolCall(callID, name, input string) Events {
	id := "ctc_" + callID
	return Events{
		ev("response.output_item.added", obj{"output_index": 0, "item": obj{
			"type": "custom_tool_call", "id": id, "call_id": callID, "name": name, "input": "", "status": "in_progress"}}),
		ev("response.custom_tool_call_input.delta", obj{"item_id": id, "call_id": callID, "output_index": 0, "delta": input}),
		ev("response.output_item.done", obj{"output_index": 0, "item": obj{
			"type": "custom_tool_call", "id": id, "call_id": callID, "name": name, "input": input, "status": "completed"}}),
	}
}

// LocalShellCall is a finished local_shell_call item running command.
func LocalShellCall(callID string, command ...string) Event {
	return ev("response.output_item.done", obj{"output_index": 0, "item": obj{
		"type": "local_shell_call", "id": "lsc_" + callID, "call_id": callID, "status": "completed",
		"action": obj{"type": "exec", "command": command}}})
}

// Usage is the token usage reported by response.completed.
type Usage struct {
	Input, Cached, Output, Reasoning, Total int64
}

// Completed is response.completed with id resp_mock and the given usage.
func Completed(u Usage) Event { return CompletedID("resp_mock", u) }

// CompletedID is response.completed with a chosen response id.
func CompletedID(id string, u Usage) Event {
	total := u.Total
	if total == 0 {
		total = u.Input + u.Output
	}
	return ev("response.completed", obj{"response": obj{"id": id, "usage": obj{
		"input_tokens":          u.Input,
		"input_tokens_details":  obj{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": obj{"reasoning_tokens": u.Reasoning},
		"total_tokens":          total,
	}}})
}

// Failed is response.failed with an error code and message (e.g. "context_length_exceeded",
// or "rate_limit_exceeded" with "Please try again in 1.5s.").
func Failed(code, message string) Event {
	return ev("response.failed", obj{"response": obj{"id": "resp_mock", "status": "failed",
		"error": obj{"code": code, "message": message}}})
}

// Incomplete is response.incomplete with a reason ("max_output_tokens", "content_filter").
func Incomplete(reason string) Event {
	return ev("response.incomplete", obj{"response": obj{"id": "resp_mock", "status": "incomplete",
		"incomplete_details": obj{"reason": reason}}})
}
