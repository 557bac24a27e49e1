package testkit

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestChatServerPlaysQueueAndRecords(t *testing.T) {
	s := NewChatServer(t)
	c := client(t)
	s.Enqueue(ChatSSE(ChatText("hi"), ChatFinish("stop"), ChatUsage(Usage{Input: 1, Output: 2}), ChatDone()),
		ChatStatus(500), ChatStatus429(2*time.Second), ChatCut(1, ChatText("a"), ChatText("b")),
		ChatResponse{ContentType: "text/html", Body: "<html>"})
	resp, body := post(t, c, s.BaseURL()+"/chat/completions?api-version=1", `{"model":"m"}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := `data: {"choices":[{"delta":{"content":"hi"},"finish_reason":null,"index":0}],"created":0,"id":"chatcmpl-mock","model":"mock","object":"chat.completion.chunk"}` + "\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}],"created":0,"id":"chatcmpl-mock","model":"mock","object":"chat.completion.chunk"}` + "\n\n" +
		`data: {"choices":[],"created":0,"id":"chatcmpl-mock","model":"mock","object":"chat.completion.chunk","usage":{"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":0},"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":0},"total_tokens":3}}` + "\n\n" +
		"data: [DONE]\n\n"
	if body != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
	if resp, _ := post(t, c, s.BaseURL()+"/chat/completions", `{}`); resp.StatusCode != 500 {
		t.Errorf("second status %d", resp.StatusCode)
	}
	if resp, _ := post(t, c, s.BaseURL()+"/chat/completions", `{}`); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("429: %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if _, body := post(t, c, s.BaseURL()+"/chat/completions", `{}`); strings.Count(body, "data: ") != 1 {
		t.Errorf("cut stream sent %q", body)
	}
	if resp, body := post(t, c, s.BaseURL()+"/chat/completions", `{}`); resp.Header.Get("Content-Type") != "text/html" || body != "<html>" {
		t.Errorf("html answer %q %q", resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := post(t, c, s.BaseURL()+"/responses", `{}`); resp.StatusCode != 404 {
		t.Errorf("other path status %d", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].Query != "api-version=1" || reqs[0].JSON["model"] != "m" || reqs[0].Header.Get("Authorization") != "Bearer k" {
		t.Fatalf("recorded %d: %+v", len(reqs), reqs[0])
	}
	if s.Pending() != 0 {
		t.Errorf("pending %d", s.Pending())
	}
}

func TestChatServerStallEndsWithServer(t *testing.T) {
	s := NewChatServer(t)
	s.Enqueue(ChatStall(1, ChatText("a"), ChatText("b")))
	c := client(t)
	resp, err := c.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, len("data: "))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "data: " {
		t.Fatalf("first chunk %q: %v", first, err)
	}
	// The stream now stalls; closing the server must end it without a second chunk.
	s.Close()
	rest, _ := io.ReadAll(resp.Body) // the close may cut the body: keep what came
	if strings.Contains(string(rest), "data: ") {
		t.Errorf("stalled stream went on: %q", rest)
	}
}
