package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// AnthropicServer is the scripted Anthropic Messages server: it answers each POST .../messages
// with the next scripted Response (the same Response, Cut, Stall and Abort faults as Server;
// build the events with the Anthropic* helpers below, error bodies with AnthropicStatus and
// AnthropicStatus429). Every request is recorded.
type AnthropicServer struct {
	*Server
}

// NewAnthropicServer starts a server on 127.0.0.1 that closes when the test ends. A request
// that finds nothing scripted fails the test and gets a 500.
func NewAnthropicServer(t TB) *AnthropicServer {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{}), arrived: make(chan struct{})}
	a := &AnthropicServer{Server: s}
	s.srv = httptest.NewServer(a)
	t.Cleanup(s.Close)
	return a
}

func isMessages(method, path string) bool {
	return method == http.MethodPost && strings.HasSuffix(path, "/messages")
}

// Requests returns the recorded POST .../messages requests, in arrival order.
func (a *AnthropicServer) Requests() []Request {
	return filterRequests(a.AllRequests(), isMessages)
}

// AwaitRequests waits until at least n POST .../messages requests arrived (or ctx ends) and
// returns them all.
func (a *AnthropicServer) AwaitRequests(ctx context.Context, n int) ([]Request, error) {
	return awaitRequests(ctx, n, &a.mu, &a.arrived, a.Requests)
}

// ServeHTTP records the request and plays the next scripted response.
func (a *AnthropicServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := a.Server
	body, _ := io.ReadAll(r.Body)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) == nil {
		rec.JSON = m
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	close(s.arrived)
	s.arrived = make(chan struct{})
	if !isMessages(r.Method, r.URL.Path) {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	resp, ok := s.next()
	s.mu.Unlock()
	if !ok {
		if s.t != nil {
			s.t.Errorf("testkit: request %d to %s found no scripted response", len(a.Requests()), r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"testkit: no scripted response left"}}`)
		return
	}
	s.play(w, r, resp)
}

// AnthropicStatus is an error response with an Anthropic error body; the error type follows
// the status as the API documents it (529 overloaded_error, 500 api_error, ...).
func AnthropicStatus(code int) Response {
	typ := map[int]string{
		400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
		500: "api_error", 529: "overloaded_error",
	}[code]
	if typ == "" {
		typ = "api_error"
	}
	return Response{Status: code, Body: anthropicErrorBody(typ, fmt.Sprintf("scripted status %d", code))}
}

// AnthropicStatus429 is a rate_limit_error with a retry-after header (in whole seconds, as
// the API sends it, rounded up).
func AnthropicStatus429(retryAfter time.Duration) Response {
	secs := int64((retryAfter + time.Second - 1) / time.Second)
	return Response{
		Status: http.StatusTooManyRequests,
		Header: map[string]string{"retry-after": fmt.Sprint(secs)},
		Body:   anthropicErrorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
	}
}

func anthropicErrorBody(typ, msg string) string {
	b, _ := json.Marshal(obj{"type": "error", "error": obj{"type": typ, "message": msg}})
	return string(b)
}

// AnthropicUsage is the usage object of message_start / message_delta.
type AnthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// AnthropicMessageStart is message_start for message id with the given input usage.
func AnthropicMessageStart(id string, usage AnthropicUsage) Event {
	return ev("message_start", obj{"message": obj{
		"id": id, "type": "message", "role": "assistant", "model": "claude-scripted", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
}

// AnthropicText is a text block at index streamed as the given deltas.
func AnthropicText(index int, deltas ...string) Events {
	evs := Events{ev("content_block_start", obj{"index": index, "content_block": obj{"type": "text", "text": ""}})}
	for _, d := range deltas {
		evs = append(evs, anthropicDelta(index, "text_delta", "text", d))
	}
	return append(evs, ev("content_block_stop", obj{"index": index}))
}

// anthropicDelta is a content_block_delta with its fields in the order the API writes them
// (type, index, delta{type, field}), which clients may read on a fast path.
func anthropicDelta(index int, deltaType, field, value string) Event {
	v, _ := json.Marshal(value)
	data := fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":%q,%q:%s}}`, index, deltaType, field, v)
	return Event{Type: "content_block_delta", Data: json.RawMessage(data)}
}

// AnthropicThinking is a thinking block at index: the deltas, then its signature.
func AnthropicThinking(index int, signature string, deltas ...string) Events {
	evs := Events{ev("content_block_start", obj{"index": index, "content_block": obj{"type": "thinking", "thinking": ""}})}
	for _, d := range deltas {
		evs = append(evs, anthropicDelta(index, "thinking_delta", "thinking", d))
	}
	evs = append(evs, anthropicDelta(index, "signature_delta", "signature", signature))
	return append(evs, ev("content_block_stop", obj{"index": index}))
}

// AnthropicRedactedThinking is a redacted_thinking block at index carrying data.
func AnthropicRedactedThinking(index int, data string) Events {
	return Events{
		ev("content_block_start", obj{"index": index, "content_block": obj{"type": "redacted_thinking", "data": data}}),
		ev("content_block_stop", obj{"index": index}),
	}
}

// AnthropicToolUse is a tool_use block at index whose input JSON arrives as the fragments.
func AnthropicToolUse(index int, id, name string, fragments ...string) Events {
	evs := Events{ev("content_block_start", obj{"index": index, "content_block": obj{"type": "tool_use", "id": id, "name": name, "input": obj{}}})}
	for _, f := range fragments {
		evs = append(evs, anthropicDelta(index, "input_json_delta", "partial_json", f))
	}
	return append(evs, ev("content_block_stop", obj{"index": index}))
}

// AnthropicMessageDelta is message_delta with the stop reason and the output token count.
func AnthropicMessageDelta(stopReason string, outputTokens int64) Event {
	return ev("message_delta", obj{"delta": obj{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": obj{"output_tokens": outputTokens}})
}

// AnthropicMessageStop is message_stop, the last event of a complete stream.
func AnthropicMessageStop() Event { return ev("message_stop", obj{}) }

// AnthropicPing is the keep-alive ping.
func AnthropicPing() Event { return ev("ping", obj{}) }

// AnthropicError is a mid-stream `error` event (e.g. overloaded_error).
func AnthropicError(typ, message string) Event {
	return ev("error", obj{"error": obj{"type": typ, "message": message}})
}

// AnthropicAnswer is a whole plain answer: message_start, one text block, end_turn, stop.
func AnthropicAnswer(id, text string) Response {
	return SSE(AnthropicMessageStart(id, AnthropicUsage{InputTokens: 10, OutputTokens: 1}),
		AnthropicText(0, text), AnthropicMessageDelta("end_turn", 5), AnthropicMessageStop())
}
