package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

func answer() testkit.ChatResponse {
	return testkit.ChatAnswer("Hi", testkit.Usage{Input: 3, Output: 1})
}

// lastIsCompleted checks a stream ended with Completed.
func lastIsCompleted(t *testing.T, evs []modelstream.ResponseEvent) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	if _, ok := evs[len(evs)-1].(modelstream.Completed); !ok {
		t.Errorf("last event %T", evs[len(evs)-1])
	}
}

func TestStatus500RetriedThenSuccess(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatStatus(500), testkit.ChatStatus(502), answer())
	evs, err := h.run(t, prompt())
	if err != nil {
		t.Fatal(err)
	}
	lastIsCompleted(t, evs)
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests", n)
	}
	// Request retries back off 200ms, 400ms and are not stream retries.
	if diff := cmp.Diff([]time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, h.clock.Sleeps()); diff != "" {
		t.Errorf("sleeps: %s", diff)
	}
	for _, r := range h.Retries() {
		if r.Stream {
			t.Errorf("retry %+v is a stream retry", r)
		}
	}
}

func TestStatus500UntilBudgetIsInternalServerError(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) {
		p.RequestMaxRetries, p.StreamMaxRetries = i64(1), i64(1)
	})
	h.srv.SetDefault(testkit.ChatStatus(500))
	_, err := h.run(t, prompt())
	if !errors.Is(err, model.ErrInternalServerError) {
		t.Fatalf("err = %v", err)
	}
	// (1 request retry) × (1 + 1 stream retry) attempts.
	if n := len(h.srv.Requests()); n != 4 {
		t.Errorf("%d requests", n)
	}
}

func TestStatus429RetryAfter(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatStatus429(2*time.Second), answer())
	evs, err := h.run(t, prompt())
	if err != nil {
		t.Fatal(err)
	}
	lastIsCompleted(t, evs)
	r := h.Retries()
	if len(r) != 1 || !r[0].Stream || r[0].Delay != 2*time.Second || !errors.Is(r[0].Err, model.ErrRetryLimit) {
		t.Errorf("retries %+v", r)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, h.clock.Sleeps()); diff != "" {
		t.Errorf("sleeps: %s", diff)
	}
}

func TestStatus429WithoutRetryAfterFails(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatResponse{Status: 429, Body: `{"error":{"message":"slow down"}}`})
	_, err := h.run(t, prompt())
	if !errors.Is(err, model.ErrRetryLimit) {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

func TestStatus401NotRetried(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatResponse{Status: 401, Body: `{"error":{"message":"Incorrect API key provided"}}`})
	_, err := h.run(t, prompt())
	var me *model.Error
	if !errors.As(err, &me) || me.Status != 401 || !strings.Contains(err.Error(), "401 Unauthorized") ||
		!strings.Contains(err.Error(), "Incorrect API key provided") || !strings.Contains(err.Error(), h.client.URL()) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-test") {
		t.Errorf("the key leaked into %q", err)
	}
	if n := len(h.srv.Requests()); n != 1 || len(h.Retries()) != 0 {
		t.Errorf("%d requests, retries %v", n, h.Retries())
	}
}

func TestCutStreamRetried(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatCut(2, testkit.ChatText("Hel"), testkit.ChatText("lo"), testkit.ChatFinish("stop"), testkit.ChatDone()), answer())
	evs, err := h.run(t, prompt())
	if err != nil {
		t.Fatal(err)
	}
	lastIsCompleted(t, evs)
	r := h.Retries()
	if len(r) != 1 || !r[0].Stream || !r[0].Restarted || r[0].Attempt != 1 || r[0].Max != model.DefaultStreamMaxRetries ||
		!errors.Is(r[0].Err, model.ErrStream) || !strings.Contains(r[0].Err.Error(), reasonCut) {
		t.Errorf("retries %+v", r)
	}
}

func TestCutStreamUntilBudgetFails(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) { p.StreamMaxRetries = i64(2) })
	h.srv.SetDefault(testkit.ChatCut(1, testkit.ChatText("a"), testkit.ChatDone()))
	_, err := h.run(t, prompt())
	if !errors.Is(err, model.ErrStream) || err.Error() != "stream disconnected before completion: "+reasonCut {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests", n)
	}
}

func TestStallIsIdleTimeoutRetried(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatStall(1, testkit.ChatText("a")), answer())
	evs, err := h.run(t, prompt())
	if err != nil {
		t.Fatal(err)
	}
	lastIsCompleted(t, evs)
	r := h.Retries()
	if len(r) != 1 || !strings.Contains(r[0].Err.Error(), model.ReasonIdleTimeout) {
		t.Errorf("retries %+v", r)
	}
}

// A malformed chunk is a clear error naming the provider; it is not retried.
func TestMalformedChunk(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.SetDefault(testkit.ChatSSE(testkit.ChatText("a"), testkit.ChatRaw(`{"choices":[{"delta":{"content":`), testkit.ChatDone()))
	evs, err := h.run(t, prompt())
	var re *ResponseError
	if !errors.As(err, &re) || re.Provider != "Mock" || re.Status != 200 ||
		!strings.HasPrefix(err.Error(), "model provider Mock (HTTP 200) sent a malformed chat completion chunk") {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
	if len(evs) != 2 { // Created, the first delta
		t.Errorf("events %v", evs)
	}
}

func TestBadReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp testkit.ChatResponse
		want string
	}{
		{"html", testkit.ChatResponse{ContentType: "text/html; charset=utf-8", Body: "<html>login</html>"},
			`model provider Mock (HTTP 200) answered with Content-Type "text/html; charset=utf-8" instead of an event stream`},
		{"invalid arguments", testkit.ChatSSE(testkit.ChatToolCall(0, "call_a", "shell"), testkit.ChatToolArgs(0, `{"command":`),
			testkit.ChatFinish("tool_calls"), testkit.ChatDone()),
			`model provider Mock (HTTP 200) sent tool call "shell" (call_a) whose arguments are not valid JSON`},
		{"freeform without input", testkit.ChatSSE(testkit.ChatToolCall(0, "call_b", "apply_patch"), testkit.ChatToolArgs(0, `{"patch":"x"}`),
			testkit.ChatFinish("tool_calls"), testkit.ChatDone()),
			"called freeform tool \"apply_patch\" (call_b) without a string `input`"},
		{"unknown finish", testkit.ChatSSE(testkit.ChatText("a"), testkit.ChatFinish("exploded"), testkit.ChatDone()),
			`ended the reply with unknown finish_reason "exploded"`},
		{"no name", testkit.ChatSSE(testkit.ChatToolArgs(0, `{}`), testkit.ChatFinish("tool_calls"), testkit.ChatDone()),
			"sent tool call 0 without a function name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.srv.SetDefault(tc.resp)
			_, err := h.run(t, historyPrompt())
			var re *ResponseError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// An error object inside the stream is classified like response.failed.
func TestErrorChunk(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(testkit.ChatRaw(`{"error":{"code":"context_length_exceeded","message":"too long"}}`)))
	_, err := h.run(t, prompt())
	if !errors.Is(err, model.ErrContextWindowExceeded) {
		t.Fatalf("err = %v", err)
	}
	h2 := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) { p.StreamMaxRetries = i64(0) })
	h2.srv.Enqueue(testkit.ChatSSE(testkit.ChatRaw(`{"error":"upstream overloaded"}`)))
	if _, err := h2.run(t, prompt()); !errors.Is(err, model.ErrStream) {
		t.Fatalf("err = %v", err)
	}
}

// Cancelling the context given to Next interrupts a read waiting on a stalled stream.
func TestNextContextInterruptsStall(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) { p.StreamIdleTimeoutMS = i64(600_000) })
	h.srv.Enqueue(testkit.ChatStall(1, testkit.ChatText("a")))
	s, err := h.client.Stream(t.Context(), prompt(), h.observe)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	for i := 0; i < 2; i++ { // Created, the delta
		if _, err := s.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	go cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(h.Retries()) != 0 {
		t.Errorf("retries %v", h.Retries())
	}
}

func TestNewRefusesOtherWires(t *testing.T) {
	for _, w := range []string{"", "responses", "anthropic"} {
		if _, err := New(model.ClientOptions{Provider: model.ProviderInfo{Name: "X", WireAPI: w}}); err == nil {
			t.Errorf("wire_api %q accepted", w)
		}
	}
	if _, err := New(model.ClientOptions{Provider: model.ProviderInfo{Name: "X", WireAPI: "chat"}, CompressZstd: true}); err == nil ||
		!strings.Contains(err.Error(), "only for the Responses API") {
		t.Errorf("zstd accepted: %v", err)
	}
	c, err := New(model.ClientOptions{Provider: model.ProviderInfo{Name: "X", WireAPI: "chat", BaseURL: "http://127.0.0.1:1/v1/", QueryParams: map[string]string{"a b": "c"}}})
	if err != nil || c.URL() != "http://127.0.0.1:1/v1/chat/completions?a+b=c" {
		t.Errorf("url %q, %v", c.URL(), err)
	}
}
