package chat

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
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

// syncBuffer is a log sink the client may write from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	srv    *testkit.ChatServer
	client *Client
	clock  *fakeClock
	logs   *syncBuffer

	mu      sync.Mutex
	retries []modelstream.RetryInfo
}

func i64(v int64) *int64 { return &v }

// newHarness starts a scripted chat server and a client for it. Jitter is fixed at 0.5
// (factor 1.0) so backoff delays are exact.
func newHarness(t *testing.T, mod func(*model.ProviderInfo, *model.ClientOptions)) *harness {
	t.Helper()
	srv := testkit.NewChatServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	h := &harness{srv: srv, clock: &fakeClock{}, logs: &syncBuffer{}}
	p := model.ProviderInfo{Name: "Mock", BaseURL: srv.BaseURL(), WireAPI: "chat", StreamIdleTimeoutMS: i64(200)}
	opts := model.ClientOptions{APIKey: "sk-test", HTTPClient: &http.Client{Transport: tr}, Clock: h.clock,
		Rand: func() float64 { return 0.5 }, Logger: slog.New(slog.NewTextHandler(h.logs, nil))}
	if mod != nil {
		mod(&p, &opts)
	}
	opts.Provider = p
	c, err := New(opts)
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

func (h *harness) Retries() []modelstream.RetryInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]modelstream.RetryInfo(nil), h.retries...)
}

// run streams p through the public Streamer to the end and returns the events and the final
// error (nil on io.EOF after Completed).
func (h *harness) run(t *testing.T, p modelstream.Prompt) ([]modelstream.ResponseEvent, error) {
	t.Helper()
	ctx := t.Context()
	s, err := h.client.Streamer().Stream(ctx, p, h.observe)
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

func prompt() modelstream.Prompt {
	return modelstream.Prompt{Model: "mock-model", PromptCacheKey: "thread-1"}
}
