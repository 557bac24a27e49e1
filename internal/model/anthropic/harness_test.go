package anthropic_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/anthropic"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk-ant-test-0123456789"

// fakeClock records backoff sleeps and returns at once; the idle timer is real (tests that
// stall use a short idle timeout and never assert on durations).
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
	srv    *testkit.AnthropicServer
	client *anthropic.Client
	clock  *fakeClock
	logs   *syncBuffer

	mu      sync.Mutex
	retries []modelstream.RetryInfo
}

func i64(v int64) *int64 { return &v }

// newHarness starts a scripted Anthropic server and a client for it. Jitter is fixed at 0.5
// (factor 1.0) so backoff delays are exact.
func newHarness(t *testing.T, mod func(*model.ProviderInfo, *model.ClientOptions), options ...anthropic.Option) *harness {
	t.Helper()
	srv := testkit.NewAnthropicServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	h := &harness{srv: srv, clock: &fakeClock{}, logs: &syncBuffer{}}
	p := model.ProviderInfo{Name: "Anthropic", BaseURL: srv.BaseURL(), WireAPI: "anthropic", StreamIdleTimeoutMS: i64(200)}
	opts := model.ClientOptions{APIKey: testKey, HTTPClient: &http.Client{Transport: tr}, Clock: h.clock,
		Rand: func() float64 { return 0.5 }, Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&p, &opts)
	}
	opts.Provider = p
	c, err := anthropic.New(opts, options...)
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

// run streams p through the public Streamer and returns every event up to io.EOF or the
// error that ended the stream.
func (h *harness) run(t *testing.T, p modelstream.Prompt) ([]modelstream.ResponseEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := h.client.Streamer().Stream(ctx, p, h.observe)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var evs []modelstream.ResponseEvent
	for {
		ev, err := st.Next(ctx)
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func userPrompt(model, text string) modelstream.Prompt {
	return modelstream.Prompt{Model: model, Instructions: "Be brief.", Input: userText(text)}
}

func userText(text string) []protocol.ResponseItem {
	return []protocol.ResponseItem{protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: text}}}}
}
