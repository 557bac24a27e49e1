package model_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
)

// TestFaults plays every fault the scripted server can inject and checks the error kind and
// text (as Codex 0.169 words them), the number of requests, the backoff sleeps and the retry
// notifications the engine turns into stream_error events.
func TestFaults(t *testing.T) {
	ctxExceeded := testkit.SSE(testkit.Created(), testkit.Failed("context_length_exceeded", "too long"))
	tests := []struct {
		name     string
		provider func(*model.ProviderInfo)
		script   []testkit.Response
		fallback *testkit.Response
		wantErr  error  // nil: the stream completes
		wantMsg  string // exact error text when set
		requests int
		sleeps   []time.Duration
		retries  []string // "stream n/max: err" or "request n/max: err"
	}{
		{
			name:     "500 then success is a silent request retry",
			script:   []testkit.Response{testkit.Status(500), ok()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"request 1/4: We’re currently experiencing high demand, which may cause temporary errors."},
		},
		{
			name:     "persistent 500 exhausts request and stream retries",
			provider: func(p *model.ProviderInfo) { p.RequestMaxRetries = i64(1); p.StreamMaxRetries = i64(2) },
			fallback: ptr(testkit.Status(500)),
			wantErr:  model.ErrInternalServerError,
			wantMsg:  "We’re currently experiencing high demand, which may cause temporary errors.",
			requests: 6,
			sleeps: []time.Duration{200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond,
				400 * time.Millisecond, 200 * time.Millisecond},
			retries: []string{
				"request 1/1: We’re currently experiencing high demand, which may cause temporary errors.",
				"stream 1/2: We’re currently experiencing high demand, which may cause temporary errors.",
				"request 1/1: We’re currently experiencing high demand, which may cause temporary errors.",
				"stream 2/2: We’re currently experiencing high demand, which may cause temporary errors.",
				"request 1/1: We’re currently experiencing high demand, which may cause temporary errors.",
			},
		},
		{
			name:     "502 is an unexpected status with the url",
			provider: func(p *model.ProviderInfo) { p.RequestMaxRetries = i64(0); p.StreamMaxRetries = i64(0) },
			script:   []testkit.Response{{Status: 502, Body: "bad gateway text"}},
			wantErr:  model.ErrUnexpectedStatus,
			wantMsg:  "unexpected status 502 Bad Gateway: bad gateway text, url: URL/v1/responses",
			requests: 1,
		},
		{
			name:     "429 with Retry-After waits that long and retries the stream",
			script:   []testkit.Response{testkit.Status429(1500 * time.Millisecond), ok()},
			requests: 2,
			sleeps:   []time.Duration{1500 * time.Millisecond},
			retries:  []string{"stream 1/5: exceeded retry limit, last status: 429 Too Many Requests"},
		},
		{
			name: "429 with a Retry-After date in the past retries at once",
			script: []testkit.Response{{Status: 429, Header: map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, Body: "{}"},
				ok()},
			requests: 2,
			sleeps:   []time.Duration{0},
			retries:  []string{"stream 1/5: exceeded retry limit, last status: 429 Too Many Requests"},
		},
		{
			name: "429 without Retry-After is fatal",
			script: []testkit.Response{{Status: 429,
				Body: `{"error":{"type":"rate_limit_exceeded","message":"Rate limit reached."}}`}},
			wantErr:  model.ErrRetryLimit,
			wantMsg:  "exceeded retry limit, last status: 429 Too Many Requests",
			requests: 1,
		},
		{
			name: "429 usage limit",
			script: []testkit.Response{{Status: 429,
				Body: `{"error":{"type":"usage_limit_reached","message":"limit","plan_type":"plus"}}`}},
			wantErr:  model.ErrUsageLimitReached,
			requests: 1,
		},
		{
			name:     "400 is an invalid request carrying the body",
			script:   []testkit.Response{{Status: 400, Body: `{"error":{"message":"Bad thing."}}`}},
			wantErr:  model.ErrInvalidRequest,
			wantMsg:  `{"error":{"message":"Bad thing."}}`,
			requests: 1,
		},
		{
			name:     "503 overloaded",
			script:   []testkit.Response{{Status: 503, Body: `{"error":{"code":"server_is_overloaded","message":"busy"}}`}},
			wantErr:  model.ErrServerOverloaded,
			wantMsg:  "Selected model is at capacity. Please try a different model.",
			requests: 1,
		},
		{
			name:     "cut stream is retried",
			script:   []testkit.Response{testkit.Cut(2, testkit.Events(ok().Events)), ok()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted: stream disconnected before completion: stream closed before response.completed"},
		},
		{
			name:     "aborted connection is retried",
			script:   []testkit.Response{{Events: ok().Events, CutAfter: ptr(2), Abort: true}, ok()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted: stream disconnected before completion: unexpected EOF"},
		},
		{
			name:     "stall past the idle timeout is retried",
			script:   []testkit.Response{testkit.Stall(1, testkit.Events(ok().Events)), ok()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted: stream disconnected before completion: idle timeout waiting for SSE"},
		},
		{
			name:     "stream retries exhausted",
			provider: func(p *model.ProviderInfo) { p.StreamMaxRetries = i64(2) },
			fallback: ptr(testkit.Cut(1, testkit.Events(ok().Events))),
			wantErr:  model.ErrStream,
			wantMsg:  "stream disconnected before completion: stream closed before response.completed",
			requests: 3,
			sleeps:   []time.Duration{200 * time.Millisecond, 400 * time.Millisecond},
			retries: []string{
				"stream 1/2 restarted: stream disconnected before completion: stream closed before response.completed",
				"stream 2/2 restarted: stream disconnected before completion: stream closed before response.completed",
			},
		},
		{
			name:     "context window exceeded",
			script:   []testkit.Response{ctxExceeded},
			wantErr:  model.ErrContextWindowExceeded,
			wantMsg:  "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
			requests: 1,
		},
		{
			name:     "insufficient quota",
			script:   []testkit.Response{testkit.SSE(testkit.Failed("insufficient_quota", "q"))},
			wantErr:  model.ErrQuotaExceeded,
			wantMsg:  "Quota exceeded. Check your plan and billing details.",
			requests: 1,
		},
		{
			name:     "usage not included",
			script:   []testkit.Response{testkit.SSE(testkit.Failed("usage_not_included", "u"))},
			wantErr:  model.ErrUsageNotIncluded,
			requests: 1,
		},
		{
			name:     "invalid prompt",
			script:   []testkit.Response{testkit.SSE(testkit.Failed("invalid_prompt", "Your prompt was flagged."))},
			wantErr:  model.ErrInvalidRequest,
			wantMsg:  "Your prompt was flagged.",
			requests: 1,
		},
		{
			name:     "overloaded via response.failed",
			script:   []testkit.Response{testkit.SSE(testkit.Failed("slow_down", "s"))},
			wantErr:  model.ErrServerOverloaded,
			requests: 1,
		},
		{
			name: "rate_limit_exceeded waits the suggested time",
			script: []testkit.Response{testkit.SSE(testkit.Created(),
				testkit.Failed("rate_limit_exceeded", "Rate limit reached. Please try again in 11.054s.")), ok()},
			requests: 2,
			sleeps:   []time.Duration{11054 * time.Millisecond},
			retries:  []string{"stream 1/5 restarted: rate limit exceeded: Rate limit reached. Please try again in 11.054s."},
		},
		{
			name:     "other response.failed is a retryable stream error",
			script:   []testkit.Response{testkit.SSE(testkit.Failed("server_error", "boom happened")), ok()},
			requests: 2,
			sleeps:   []time.Duration{200 * time.Millisecond},
			retries:  []string{"stream 1/5: stream disconnected before completion: boom happened"},
		},
		{
			name:     "response.incomplete is fatal",
			script:   []testkit.Response{testkit.SSE(testkit.Created(), testkit.Incomplete("max_output_tokens"))},
			wantErr:  model.ErrIncomplete,
			wantMsg:  "Incomplete response returned, reason: max_output_tokens",
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(p *model.ProviderInfo, _ *model.ClientOptions) {
				if tt.provider != nil {
					tt.provider(p)
				}
			})
			h.srv.Enqueue(tt.script...)
			if tt.fallback != nil {
				h.srv.SetDefault(*tt.fallback)
			}
			evs, err := h.run(t, context.Background())
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if _, ok := evs[len(evs)-1].(modelstream.Completed); !ok {
					t.Errorf("last event %#v, want Completed", evs[len(evs)-1])
				}
			} else {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v (%T), want %v", err, err, tt.wantErr)
				}
				if tt.wantMsg != "" {
					want := replaceURL(tt.wantMsg, h.srv.URL())
					if err.Error() != want {
						t.Errorf("message:\n got %q\nwant %q", err.Error(), want)
					}
				}
			}
			if n := len(h.srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if diff := cmp.Diff(tt.sleeps, h.clock.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			var got []string
			for _, r := range h.retries {
				kind := "request"
				if r.Stream {
					kind = "stream"
				}
				s := kind + " " + itoa(r.Attempt) + "/" + itoa(r.Max)
				if r.Restarted {
					s += " restarted"
				}
				got = append(got, s+": "+r.Err.Error())
			}
			if diff := cmp.Diff(tt.retries, got); diff != "" {
				t.Errorf("retries (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func itoa(n int) string { return strconv.Itoa(n) }

func replaceURL(s, url string) string { return strings.Replace(s, "URL", url, 1) }
