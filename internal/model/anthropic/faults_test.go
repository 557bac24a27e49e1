package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/anthropic"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

func ptr[T any](v T) *T { return &v }

func answer() testkit.Response { return testkit.AnthropicAnswer("msg_ok", "fine") }

func malformed() testkit.Response {
	return testkit.SSE(
		testkit.AnthropicMessageStart("msg_bad", testkit.AnthropicUsage{InputTokens: 1}),
		testkit.Event{Type: "content_block_delta", Data: json.RawMessage(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated`)},
	)
}

// TestFaults plays each fault of the scripted server and checks the outcome: the error kind
// and a text a person can act on, how many requests were sent, the backoff sleeps and the
// retry notifications.
func TestFaults(t *testing.T) {
	tests := []struct {
		name     string
		provider func(*model.ProviderInfo)
		script   []testkit.Response
		fallback *testkit.Response
		wantErr  error    // nil: the stream completes
		wantMsg  []string // substrings of the error text
		requests int
		sleeps   []time.Duration
		retries  []string // "stream n/max restarted=b" or "request n/max"
	}{
		{
			name:     "529 overloaded then success is a request retry",
			script:   []testkit.Response{testkit.AnthropicStatus(529), answer()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"request 1/4"},
		},
		{
			name:     "persistent 529 exhausts the retries and names the provider and status",
			provider: func(p *model.ProviderInfo) { p.RequestMaxRetries = i64(0); p.StreamMaxRetries = i64(1) },
			fallback: ptr(testkit.AnthropicStatus(529)),
			wantErr:  model.ErrUnexpectedStatus,
			wantMsg:  []string{"529", "Anthropic", "overloaded_error"},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/1 restarted=false"},
		},
		{
			name: "overloaded error event mid-stream is a stream retry",
			script: []testkit.Response{testkit.SSE(
				testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 1}),
				testkit.AnthropicError("overloaded_error", "Overloaded"),
			), answer()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted=true"},
		},
		{
			name:     "429 with retry-after waits that long",
			script:   []testkit.Response{testkit.AnthropicStatus429(2 * time.Second), answer()},
			requests: 2,
			sleeps:   []time.Duration{2 * time.Second},
			retries:  []string{"stream 1/5 restarted=false"},
		},
		{
			name:     "429 without retry-after ends the turn",
			script:   []testkit.Response{testkit.AnthropicStatus(429)},
			wantErr:  model.ErrRetryLimit,
			wantMsg:  []string{"429"},
			requests: 1,
		},
		{
			name: "cut stream is retried",
			script: []testkit.Response{testkit.Cut(3,
				testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 1}),
				testkit.AnthropicText(0, "partial", "more"),
				testkit.AnthropicMessageDelta("end_turn", 2), testkit.AnthropicMessageStop()), answer()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted=true"},
		},
		{
			name:     "cut stream past the retries is a stream error",
			provider: func(p *model.ProviderInfo) { p.StreamMaxRetries = i64(0) },
			script:   []testkit.Response{testkit.Cut(1, testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{}))},
			wantErr:  model.ErrStream,
			wantMsg:  []string{"stream closed before message_stop"},
			requests: 1,
		},
		{
			name:     "stalled stream hits the idle timeout and is retried",
			script:   []testkit.Response{testkit.Stall(1, testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{})), answer()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted=true"},
		},
		{
			name:     "malformed event is a clear stream error",
			provider: func(p *model.ProviderInfo) { p.StreamMaxRetries = i64(1) },
			fallback: ptr(malformed()),
			wantErr:  model.ErrStream,
			wantMsg:  []string{"Anthropic: malformed content_block_delta event"},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/1 restarted=true"},
		},
		{
			name: "401 ends the turn at once without the key in the error",
			script: []testkit.Response{{Status: 401,
				Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`}},
			wantErr:  model.ErrInvalidRequest,
			wantMsg:  []string{"Anthropic HTTP 401 authentication_error: invalid x-api-key [REDACTED]"},
			requests: 1,
		},
		{
			name:     "400 prompt too long is a context window error",
			script:   []testkit.Response{{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`}},
			wantErr:  model.ErrContextWindowExceeded,
			requests: 1,
		},
		{
			name:     "HTML error page names the status",
			provider: func(p *model.ProviderInfo) { p.RequestMaxRetries = i64(0); p.StreamMaxRetries = i64(0) },
			script:   []testkit.Response{{Status: 502, Body: "<html><body>Bad gateway</body></html>"}},
			wantErr:  model.ErrUnexpectedStatus,
			wantMsg:  []string{"502", "Anthropic HTTP 502 <html>"},
			requests: 1,
		},
		{
			name: "max_tokens stop reason is an incomplete response",
			script: []testkit.Response{testkit.SSE(
				testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{}), testkit.AnthropicText(0, "cut sho"),
				testkit.AnthropicMessageDelta("max_tokens", 8192), testkit.AnthropicMessageStop())},
			wantErr:  model.ErrIncomplete,
			wantMsg:  []string{"max_tokens"},
			requests: 1,
		},
		{
			name: "unknown stop reason is named",
			script: []testkit.Response{testkit.SSE(
				testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{}),
				testkit.AnthropicMessageDelta("teleported", 1), testkit.AnthropicMessageStop())},
			wantErr:  model.ErrIncomplete,
			wantMsg:  []string{`unknown stop_reason "teleported"`},
			requests: 1,
		},
		{
			name: "invalid_request_error event ends the turn",
			script: []testkit.Response{testkit.SSE(
				testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{}),
				testkit.AnthropicError("invalid_request_error", "tool_use ids must be unique"))},
			wantErr:  model.ErrInvalidRequest,
			wantMsg:  []string{"Anthropic invalid_request_error: tool_use ids must be unique"},
			requests: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) {
				if tc.provider != nil {
					tc.provider(p)
				}
			})
			h.srv.Enqueue(tc.script...)
			if tc.fallback != nil {
				h.srv.SetDefault(*tc.fallback)
			}
			evs, err := h.run(t, userPrompt("claude-sonnet-4-5", "hi"))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("stream failed: %v", err)
				}
				if _, ok := evs[len(evs)-1].(modelstream.Completed); !ok {
					t.Errorf("last event %T, want Completed", evs[len(evs)-1])
				}
			} else {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error = %v (%T), want %v", err, err, tc.wantErr)
				}
				for _, m := range tc.wantMsg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not contain %q", err.Error(), m)
					}
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error holds the API key: %q", err.Error())
				}
			}
			if got := len(h.srv.Requests()); got != tc.requests {
				t.Errorf("requests = %d, want %d", got, tc.requests)
			}
			if diff := cmp.Diff(tc.sleeps, h.clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			var retries []string
			for _, r := range h.Retries() {
				if r.Stream {
					retries = append(retries, fmt.Sprintf("stream %d/%d restarted=%v", r.Attempt, r.Max, r.Restarted))
				} else {
					retries = append(retries, fmt.Sprintf("request %d/%d", r.Attempt, r.Max))
				}
			}
			if diff := cmp.Diff(tc.retries, retries); diff != "" {
				t.Errorf("retries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCancelInterruptsStalledRead: cancelling the Next context ends a read that waits on a
// stalled stream (no hang), and Close releases the connection.
func TestCancelInterruptsStalledRead(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) { p.StreamIdleTimeoutMS = i64(60_000) })
	h.srv.Enqueue(testkit.Stall(1, testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{})))
	st, err := h.client.Stream(context.Background(), userPrompt("claude-sonnet-4-5", "hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Next(context.Background()); err != nil { // Created
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel while the read is (most likely) blocked: the server has nothing more to send.
	stop := time.AfterFunc(50*time.Millisecond, cancel)
	defer stop.Stop()
	if _, err := st.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel = %v, want context.Canceled", err)
	}
}

// TestNewRejectsOtherWire: the client refuses a provider meant for another wire.
func TestNewRejectsOtherWire(t *testing.T) {
	_, err := anthropic.New(model.ClientOptions{Provider: model.ProviderInfo{Name: "x", WireAPI: "responses"}})
	if err == nil || !strings.Contains(err.Error(), `"responses"`) {
		t.Fatalf("New = %v, want an error naming the wire", err)
	}
}
