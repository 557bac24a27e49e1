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
	"sync"
	"time"
)

// ChatServer is the scripted Chat Completions server: it listens on 127.0.0.1 and answers
// each POST .../chat/completions with the next scripted ChatResponse, a stream of
// `data: <chunk>` lines built from ChatText, ChatReasoning, ChatToolCall, ChatToolArgs,
// ChatFinish, ChatUsage and ChatDone, or a fault (ChatStatus, ChatStatus429, ChatCut,
// ChatStall, ChatRaw for a malformed chunk). Every request is recorded.
type ChatServer struct {
	t    TB
	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	queue    []ChatResponse
	fallback *ChatResponse
	requests []Request
	arrived  chan struct{}
	closed   bool
}

// ChatResponse is one scripted answer. The zero Status means 200 with an event stream.
type ChatResponse struct {
	Status int               `json:"status,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	// Body is sent as is for a non-200 status, or instead of Chunks when ContentType is set.
	Body string `json:"body,omitempty"`
	// ContentType replaces text/event-stream (an HTML page or a JSON answer at 200).
	ContentType string `json:"content_type,omitempty"`
	// Chunks are the `data:` payloads of a 200 stream, in order ("[DONE]" included).
	Chunks []string `json:"chunks,omitempty"`
	// CutAfter >= 0 ends the body cleanly after that many chunks.
	CutAfter *int `json:"cut_after,omitempty"`
	// StallAfter >= 0 sends that many chunks, then nothing until the client goes away or the
	// server closes.
	StallAfter *int `json:"stall_after,omitempty"`
}

// ChatPart is what ChatSSE takes: chunk payloads built by the Chat* helpers.
type ChatPart []string

// ChatID is the `id` of every scripted chunk.
const ChatID = "chatcmpl-mock"

// NewChatServer starts a server on 127.0.0.1 that closes when the test ends. A request that
// finds nothing scripted fails the test and gets a 500.
func NewChatServer(t TB) *ChatServer {
	t.Helper()
	s := &ChatServer{t: t, done: make(chan struct{}), arrived: make(chan struct{})}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

// URL is the server root; BaseURL is the provider base_url, URL()+"/v1".
func (s *ChatServer) URL() string     { return s.srv.URL }
func (s *ChatServer) BaseURL() string { return s.srv.URL + "/v1" }

// Enqueue adds responses; each request takes the next one.
func (s *ChatServer) Enqueue(rs ...ChatResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// SetDefault answers every request that finds the queue empty with r.
func (s *ChatServer) SetDefault(r ChatResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &r
}

// Pending is the number of queued responses not yet served.
func (s *ChatServer) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the recorded POST .../chat/completions requests, in arrival order.
func (s *ChatServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return filterRequests(s.requests, isChatCompletions)
}

// AwaitRequests waits until at least n chat requests arrived (or ctx ends).
func (s *ChatServer) AwaitRequests(ctx context.Context, n int) ([]Request, error) {
	return awaitRequests(ctx, n, &s.mu, &s.arrived, s.Requests)
}

// Close unblocks stalled streams and stops the server. It is safe to call twice.
func (s *ChatServer) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

func isChatCompletions(method, path string) bool {
	return method == http.MethodPost && strings.HasSuffix(path, "/chat/completions")
}

// ServeHTTP records the request and plays the next scripted response.
func (s *ChatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if !isChatCompletions(r.Method, r.URL.Path) {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	var resp ChatResponse
	ok := true
	switch {
	case len(s.queue) > 0:
		resp, s.queue = s.queue[0], s.queue[1:]
	case s.fallback != nil:
		resp = *s.fallback
	default:
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("testkit: chat request %d to %s found no scripted response", len(s.Requests()), r.URL.Path)
		http.Error(w, `{"error":{"message":"testkit: no scripted response left"}}`, http.StatusInternalServerError)
		return
	}
	s.play(w, r, resp)
}

func (s *ChatServer) play(w http.ResponseWriter, r *http.Request, resp ChatResponse) {
	for k, v := range resp.Header {
		w.Header().Set(k, v)
	}
	if resp.Status != 0 && resp.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		io.WriteString(w, resp.Body)
		return
	}
	if resp.ContentType != "" {
		w.Header().Set("Content-Type", resp.ContentType)
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, resp.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	limit, stall := -1, false
	if resp.CutAfter != nil {
		limit = *resp.CutAfter
	}
	if resp.StallAfter != nil {
		limit, stall = *resp.StallAfter, true
	}
	// Chunks go out in large writes, as eventWriter does for the Responses server.
	buf := make([]byte, 0, 64<<10)
	for i, c := range resp.Chunks {
		if limit >= 0 && i >= limit {
			break
		}
		buf = append(buf, "data: "...)
		buf = append(buf, c...)
		buf = append(buf, "\n\n"...)
		if len(buf) >= 32<<10 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	w.Write(buf)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if stall {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	}
}

// ChatSSE is a 200 stream of the parts' chunks in order.
func ChatSSE(parts ...ChatPart) ChatResponse {
	var chunks []string
	for _, p := range parts {
		chunks = append(chunks, p...)
	}
	return ChatResponse{Chunks: chunks}
}

// ChatCut is a stream that ends (cleanly, without finish_reason or [DONE]) after n chunks.
func ChatCut(n int, parts ...ChatPart) ChatResponse {
	r := ChatSSE(parts...)
	r.CutAfter = &n
	return r
}

// ChatStall sends n chunks and then nothing until the client disconnects or the server
// closes.
func ChatStall(n int, parts ...ChatPart) ChatResponse {
	r := ChatSSE(parts...)
	r.StallAfter = &n
	return r
}

// ChatStatus is an error response with an OpenAI-style error body.
func ChatStatus(code int) ChatResponse {
	r := Status(code)
	return ChatResponse{Status: r.Status, Header: r.Header, Body: r.Body}
}

// ChatStatus429 is a rate-limit response with a Retry-After header.
func ChatStatus429(retryAfter time.Duration) ChatResponse {
	r := Status429(retryAfter)
	return ChatResponse{Status: r.Status, Header: r.Header, Body: r.Body}
}

func chatChunk(delta obj, finish any, extra obj) string {
	c := obj{"id": ChatID, "object": "chat.completion.chunk", "created": 0, "model": "mock",
		"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}}
	for k, v := range extra {
		c[k] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("testkit: marshal chat chunk: %v", err))
	}
	return string(b)
}

// ChatText is one content delta.
func ChatText(delta string) ChatPart {
	return ChatPart{chatChunk(obj{"content": delta}, nil, nil)}
}

// ChatReasoning is one reasoning delta as `reasoning_content` (DeepSeek, vLLM).
func ChatReasoning(delta string) ChatPart {
	return ChatPart{chatChunk(obj{"content": nil, "reasoning_content": delta}, nil, nil)}
}

// ChatReasoningField is one reasoning delta as `reasoning` (OpenRouter, Ollama).
func ChatReasoningField(delta string) ChatPart {
	return ChatPart{chatChunk(obj{"content": nil, "reasoning": delta}, nil, nil)}
}

// ChatToolCall is the first fragment of the call at index: its id and function name.
func ChatToolCall(index int, id, name string) ChatPart {
	return ChatPart{chatChunk(obj{"tool_calls": []obj{{"index": index, "id": id, "type": "function",
		"function": obj{"name": name, "arguments": ""}}}}, nil, nil)}
}

// ChatToolArgs is a piece of the arguments of the call at index.
func ChatToolArgs(index int, fragment string) ChatPart {
	return ChatPart{chatChunk(obj{"tool_calls": []obj{{"index": index, "function": obj{"arguments": fragment}}}}, nil, nil)}
}

// ChatFinish is the chunk carrying finish_reason ("stop", "tool_calls", "length").
func ChatFinish(reason string) ChatPart {
	return ChatPart{chatChunk(obj{}, reason, nil)}
}

// ChatUsage is the final usage chunk (empty choices), as stream_options.include_usage asks.
func ChatUsage(u Usage) ChatPart {
	total := u.Total
	if total == 0 {
		total = u.Input + u.Output
	}
	c := obj{"id": ChatID, "object": "chat.completion.chunk", "created": 0, "model": "mock", "choices": []obj{},
		"usage": obj{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": total,
			"prompt_tokens_details": obj{"cached_tokens": u.Cached}, "completion_tokens_details": obj{"reasoning_tokens": u.Reasoning}}}
	b, _ := json.Marshal(c)
	return ChatPart{string(b)}
}

// ChatDone is the `[DONE]` sentinel.
func ChatDone() ChatPart { return ChatPart{"[DONE]"} }

// ChatRaw is a payload sent as is (a malformed chunk).
func ChatRaw(data string) ChatPart { return ChatPart{data} }

// ChatAnswer is a whole plain reply: the text in one delta, stop, usage, [DONE].
func ChatAnswer(text string, u Usage) ChatResponse {
	return ChatSSE(ChatText(text), ChatFinish("stop"), ChatUsage(u), ChatDone())
}
