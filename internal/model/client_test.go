package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeClock records backoff sleeps and returns at once; the idle timer is real (tests use a
// short idle timeout and never assert on durations).
type fakeClock struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) model.Timer { return time.AfterFunc(d, f) }

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

type harness struct {
	srv     *testkit.Server
	client  *model.Client
	clock   *fakeClock
	retries []modelstream.RetryInfo
	mu      sync.Mutex
}

func i64(v int64) *int64 { return &v }

// newHarness starts a scripted server and a client for it. Jitter is fixed at 0.5 (factor
// 1.0) so backoff delays are exact.
func newHarness(t *testing.T, mod func(*model.ProviderInfo, *model.ClientOptions)) *harness {
	t.Helper()
	srv := testkit.NewServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	h := &harness{srv: srv, clock: &fakeClock{}}
	p := model.ProviderInfo{Name: "Mock", BaseURL: srv.BaseURL(), EnvKey: "MOCK_API_KEY",
		StreamIdleTimeoutMS: i64(200)}
	opts := model.ClientOptions{APIKey: "sk-test", HTTPClient: &http.Client{Transport: tr}, Clock: h.clock,
		Rand: func() float64 { return 0.5 }}
	if mod != nil {
		mod(&p, &opts)
	}
	opts.Provider = p
	c, err := model.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return h
}

func (h *harness) observe(r modelstream.RetryInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.retries = append(h.retries, r)
}

// run streams a prompt to the end and returns the events and the final error (nil on
// io.EOF after Completed).
func (h *harness) run(t *testing.T, ctx context.Context) ([]modelstream.ResponseEvent, error) {
	t.Helper()
	s, err := h.client.Stream(ctx, modelstream.Prompt{Model: "gpt-5.5", PromptCacheKey: "thread-1"}, h.observe)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var evs []modelstream.ResponseEvent
	for {
		ev, err := s.Next(ctx)
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func ok() testkit.Response {
	return testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("msg_1", "Hi"), testkit.Completed(testkit.Usage{Input: 3, Output: 1}))
}

func TestEventsDecoded(t *testing.T) {
	h := newHarness(t, nil)
	garbage := testkit.Event{Type: "response.output_text.delta", Data: json.RawMessage(`{not json`)}
	unknown := testkit.Raw("response.in_progress", map[string]any{"type": "response.in_progress"})
	h.srv.Enqueue(testkit.Response{
		Header: map[string]string{"x-codex-primary-used-percent": "12.5", "x-codex-primary-window-minutes": "300",
			"openai-model": "gpt-5.5-2026", "x-reasoning-included": "true", "x-codex-turn-state": "ts-1"},
		Events: testkit.SSE(
			testkit.Created(), garbage, unknown,
			testkit.Reasoning("rs_1", "Thinking"),
			testkit.ReasoningText("rs_1", 0, "raw"),
			testkit.AssistantMessageStream("msg_1", "Hel", "lo"),
			testkit.FunctionCall("call_1", "shell_command", `{"command":"ls"}`),
			testkit.CustomToolCall("call_2", "apply_patch", "*** Begin Patch"),
			testkit.LocalShellCall("call_3", "echo", "hi"),
			testkit.CompletedID("resp_9", testkit.Usage{Input: 100, Cached: 40, Output: 20, Reasoning: 5, Total: 120}),
			testkit.TextDelta("after completed is never read"),
		).Events,
	})
	evs, err := h.run(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	enc := "enc_rs_1"
	window := int64(300)
	cid := "codex"
	want := []modelstream.ResponseEvent{
		modelstream.RateLimits{Snapshot: protocol.RateLimitSnapshot{LimitID: &cid, Primary: &protocol.RateLimitWindow{UsedPercent: 12.5, WindowMinutes: &window}}},
		modelstream.ServerModel{Model: "gpt-5.5-2026"},
		modelstream.ServerReasoningIncluded{},
		modelstream.ServerTurnState{Token: "ts-1"},
		modelstream.Created{},
		modelstream.OutputItemAdded{Item: protocol.ReasoningItem{ID: "rs_1", Summary: []protocol.ReasoningSummary{}}},
		modelstream.ReasoningSummaryPartAdded{ItemID: "rs_1", SummaryIndex: 0},
		modelstream.ReasoningSummaryDelta{ItemID: "rs_1", Delta: "Thinking", SummaryIndex: 0},
		modelstream.OutputItemDone{Item: protocol.ReasoningItem{ID: "rs_1", Summary: []protocol.ReasoningSummary{{Type: "summary_text", Text: "Thinking"}}, EncryptedContent: &enc}},
		modelstream.ReasoningContentDelta{ItemID: "rs_1", Delta: "raw", ContentIndex: 0},
		modelstream.OutputItemAdded{Item: protocol.MessageItem{ID: "msg_1", Role: "assistant", Content: []protocol.ContentItem{}}},
		modelstream.OutputTextDelta{ItemID: "msg_1", Delta: "Hel"},
		modelstream.OutputTextDelta{ItemID: "msg_1", Delta: "lo"},
		modelstream.OutputItemDone{Item: protocol.MessageItem{ID: "msg_1", Role: "assistant", Content: []protocol.ContentItem{{Type: "output_text", Text: "Hello"}}}},
		modelstream.OutputItemDone{Item: protocol.FunctionCallItem{ID: "fc_call_1", Name: "shell_command", Arguments: `{"command":"ls"}`, CallID: "call_1"}},
		modelstream.OutputItemAdded{Item: protocol.CustomToolCallItem{ID: "ctc_call_2", Status: "in_progress", CallID: "call_2", Name: "apply_patch"}},
		modelstream.CustomToolCallInputDelta{ItemID: "ctc_call_2", CallID: "call_2", Delta: "*** Begin Patch"},
		modelstream.OutputItemDone{Item: protocol.CustomToolCallItem{ID: "ctc_call_2", Status: "completed", CallID: "call_2", Name: "apply_patch", Input: "*** Begin Patch"}},
		nil, // local_shell_call: compared by type below
		modelstream.Completed{ResponseID: "resp_9", Usage: &protocol.TokenUsage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 20, ReasoningOutputTokens: 5, TotalTokens: 120}},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %d events, want %d:\n%#v", len(evs), len(want), evs)
	}
	for i := range want {
		if want[i] == nil {
			done, ok := evs[i].(modelstream.OutputItemDone)
			if !ok || done.Item.ItemType() != "local_shell_call" {
				t.Errorf("event %d = %#v, want local_shell_call item", i, evs[i])
			}
			continue
		}
		if diff := cmp.Diff(want[i], evs[i], cmpItems); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", i, diff)
		}
	}
}

// cmpItems compares protocol items by their wire JSON, which is what matters downstream and
// sidesteps fields the protocol package keeps private.
var cmpItems = cmp.Transformer("item", func(it protocol.ResponseItem) string {
	b, err := json.Marshal(it)
	if err != nil {
		return "marshal error: " + err.Error()
	}
	return it.ItemType() + " " + itemID(it) + " " + string(b)
})

func itemID(it protocol.ResponseItem) string {
	switch v := it.(type) {
	case protocol.MessageItem:
		return v.ID
	case protocol.ReasoningItem:
		return v.ID
	case protocol.FunctionCallItem:
		return v.ID
	case protocol.CustomToolCallItem:
		return v.ID
	}
	return ""
}

func TestRequestHeadersAndURL(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, o *model.ClientOptions) {
		p.QueryParams = map[string]string{"api-version": "2025-04-01", "b": "x y"}
		p.HTTPHeaders = map[string]string{"X-Static": "s"}
		p.EnvHTTPHeaders = map[string]string{"X-From-Env": "MY_VAR", "X-Unset": "UNSET_VAR"}
		o.Getenv = func(k string) string {
			if k == "MY_VAR" {
				return "env-value"
			}
			return ""
		}
	})
	h.srv.Enqueue(ok())
	s, err := h.client.Stream(context.Background(), modelstream.Prompt{Model: "m", PromptCacheKey: "thread-7",
		ExtraHeaders: map[string]string{"x-codex-window-id": "thread-7:0"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	got := map[string]string{"path": r.Path, "query": r.Query}
	for _, k := range []string{"Authorization", "Originator", "User-Agent", "Session-Id", "Thread-Id", "X-Client-Request-Id",
		"Accept", "Content-Type", "X-Static", "X-From-Env", "X-Unset", "X-Codex-Window-Id"} {
		got[k] = r.Header.Get(k)
	}
	want := map[string]string{
		"path": "/v1/responses", "query": "api-version=2025-04-01&b=x+y",
		"Authorization": "Bearer sk-test", "Originator": "codex_cli_rs",
		"User-Agent": model.DefaultUserAgent("codex_cli_rs"),
		"Session-Id": "thread-7", "Thread-Id": "thread-7", "X-Client-Request-Id": "thread-7",
		"Accept": "text/event-stream", "Content-Type": "application/json",
		"X-Static": "s", "X-From-Env": "env-value", "X-Unset": "", "X-Codex-Window-Id": "thread-7:0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestRequestBodyGolden(t *testing.T) {
	enc := "gAAA"
	prompt := modelstream.Prompt{
		Model:        "gpt-5.5",
		Instructions: "Be <brief> & exact.",
		Input: []protocol.ResponseItem{
			protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: "input_text", Text: "list files"}}},
			protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{}, EncryptedContent: &enc},
			protocol.FunctionCallItem{Name: "shell_command", Arguments: `{"command":"ls"}`, CallID: "call_1"},
			protocol.FunctionCallOutputItem{CallID: "call_1", Output: protocol.FunctionCallOutputPayload{Content: "a\nb"}},
		},
		Tools:             []json.RawMessage{json.RawMessage(`{"type":"function","name":"shell_command"}`)},
		ParallelToolCalls: true,
		Reasoning:         &modelstream.Reasoning{Effort: "medium", Summary: "none"},
		OutputSchema:      json.RawMessage(`{"type":"object"}`),
		Verbosity:         "low",
		ServiceTier:       "fast",
		PromptCacheKey:    "thread-1",
		ClientMetadata:    json.RawMessage(`{"session_id":"thread-1","x-codex-installation-id":"inst"}`),
	}
	minimal := modelstream.Prompt{Model: "m"}
	for name, p := range map[string]modelstream.Prompt{"full": prompt, "minimal": minimal} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.srv.Enqueue(ok())
			s, err := h.client.Stream(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			got := h.srv.Requests()[0].Body
			if string(got) != string(s.Body()) {
				t.Errorf("server saw a different body than Stream.Body")
			}
			golden(t, filepath.Join("testdata", "request_body_"+name+".json"), got)
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestTransportErrorIsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: connection refused
	clock := &fakeClock{}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := model.NewClient(model.ClientOptions{
		Provider:   model.ProviderInfo{BaseURL: "http://" + addr + "/v1", RequestMaxRetries: i64(1), StreamMaxRetries: i64(1)},
		HTTPClient: &http.Client{Transport: tr}, Clock: clock, Rand: func() float64 { return 0.5 },
	})
	if err != nil {
		t.Fatal(err)
	}
	var infos []modelstream.RetryInfo
	_, err = c.Stream(context.Background(), modelstream.Prompt{Model: "m"}, func(r modelstream.RetryInfo) { infos = append(infos, r) })
	if !errors.Is(err, model.ErrTransport) {
		t.Fatalf("err = %v, want transport error", err)
	}
	if len(infos) != 3 || !infos[1].Stream {
		t.Errorf("retries = %+v, want request, stream, request", infos)
	}
}

func TestInterruptDuringStall(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) {
		p.StreamIdleTimeoutMS = i64(int64(time.Hour / time.Millisecond))
	})
	h.srv.Enqueue(testkit.Stall(1, testkit.Events(ok().Events)))
	ctx, cancel := context.WithCancel(context.Background())
	s, err := h.client.Stream(ctx, modelstream.Prompt{Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Next(ctx); err != nil {
		t.Fatal(err)
	} else if _, ok := ev.(modelstream.Created); !ok {
		t.Fatalf("first event %#v", ev)
	}
	// A separate Next context (the engine's turn context) interrupts the blocked read.
	nextCtx, nextCancel := context.WithCancel(ctx)
	go nextCancel()
	if _, err := s.Next(nextCtx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	cancel()
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		n    int
		r    float64
		want time.Duration
	}{
		{1, 0.5, 200 * time.Millisecond},
		{2, 0.5, 400 * time.Millisecond},
		{3, 0.5, 800 * time.Millisecond},
		{1, 0, 180 * time.Millisecond},
		{1, 0.999999, 219999960 * time.Nanosecond},
		{0, 0.5, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := model.Backoff(tt.n, tt.r); got != tt.want {
			t.Errorf("Backoff(%d, %v) = %v, want %v", tt.n, tt.r, got, tt.want)
		}
	}
}

// The Responses client refuses the other wires (the host gives them their own clients) and
// an unknown wire_api is an error naming the three.
func TestOtherWiresRejectedByResponsesClient(t *testing.T) {
	for _, wire := range []string{"chat", "anthropic"} {
		_, err := model.NewClient(model.ClientOptions{Provider: model.ProviderInfo{Name: "x", WireAPI: wire}})
		if !errors.Is(err, model.ErrNotResponsesWire) {
			t.Errorf("%s: err = %v", wire, err)
		}
	}
	if err := (model.ProviderInfo{Name: "x", WireAPI: "grpc"}).Validate(); err == nil || !strings.Contains(err.Error(), `"anthropic"`) {
		t.Errorf("unknown wire: %v", err)
	}
}

func TestSSEFixture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fixture.sse")
	data := "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\"}}\n\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(_ *model.ProviderInfo, o *model.ClientOptions) { o.SSEFixture = path })
	evs, err := h.run(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []modelstream.ResponseEvent{modelstream.Created{}, modelstream.OutputTextDelta{Delta: "hi"}, modelstream.Completed{ResponseID: "r1"}}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Error(diff)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent with a fixture", n)
	}
}

func TestOriginatorFromEnv(t *testing.T) {
	if got := model.OriginatorFromEnv(func(string) string { return "" }, "codex_exec"); got != "codex_exec" {
		t.Errorf("got %q", got)
	}
	if got := model.OriginatorFromEnv(func(k string) string {
		if k == "CODEX_INTERNAL_ORIGINATOR_OVERRIDE" {
			return "x"
		}
		return ""
	}, "codex_exec"); got != "x" {
		t.Errorf("got %q", got)
	}
}
