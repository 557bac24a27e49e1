package model

import (
	"context"
	"fmt"
	"github.com/gocodex/gocodex/modelstream"
	"log/slog"
	"net/http"
	"time"

	"github.com/gocodex/gocodex/internal/model/sse"
)

// ClientOptions configures a Client.
type ClientOptions struct {
	Provider ProviderInfo
	// APIKey is sent as `Authorization: Bearer`; empty sends no Authorization header.
	APIKey string
	// HTTPClient defaults to a client without a total timeout (streams are long).
	HTTPClient *http.Client
	// Originator defaults to "codex_cli_rs".
	Originator string
	// UserAgent defaults to DefaultUserAgent(Originator).
	UserAgent string
	// Getenv reads env_http_headers values; nil means no environment.
	Getenv func(string) string
	// Clock supplies sleeps and the idle timer; nil means the real clock.
	Clock Clock
	// Rand supplies jitter in [0,1); nil uses math/rand/v2.
	Rand func() float64
	// Logger receives debug notes (skipped unparseable events); nil discards.
	Logger *slog.Logger
	// Auth, when set, supplies each request's credentials (and APIKey is not sent).
	Auth Authorizer
	// CompressZstd sends request bodies zstd-compressed (Codex does for the ChatGPT backend).
	CompressZstd bool
	// SSEFixture, when set, names a file of SSE text that every Stream reads instead of
	// sending a request (Codex's CODEX_RS_SSE_FIXTURE test hook).
	SSEFixture string
}

// Log is Logger, or a logger that discards when it is nil.
func (o ClientOptions) Log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// DefaultOriginator is the `originator` header Codex sends unless overridden. Codex's exec
// face sends "codex_exec".
const DefaultOriginator = "codex_cli_rs"

// OriginatorFromEnv applies Codex's CODEX_INTERNAL_ORIGINATOR_OVERRIDE to def.
func OriginatorFromEnv(getenv func(string) string, def string) string {
	if getenv != nil {
		if v := getenv("CODEX_INTERNAL_ORIGINATOR_OVERRIDE"); v != "" {
			return v
		}
	}
	return def
}

// Client sends Responses requests to one provider. It is safe for concurrent use.
type Client struct {
	opts       ClientOptions
	log        *slog.Logger
	originator string
	userAgent  string
	url        string
	streams    StreamConfig
}

// NewClient returns a client for the provider. It fails for a provider the client cannot
// speak to (`wire_api = "chat"`).
func NewClient(opts ClientOptions) (*Client, error) {
	if err := opts.Provider.Validate(); err != nil {
		return nil, err
	}
	if opts.Provider.Wire() != WireResponses {
		return nil, fmt.Errorf("%w (%q)", ErrNotResponsesWire, opts.Provider.WireAPI)
	}
	c := &Client{opts: opts, log: opts.Log()}
	c.originator = opts.Originator
	if c.originator == "" {
		c.originator = DefaultOriginator
	}
	c.userAgent = opts.UserAgent
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent(c.originator)
	}
	c.url = opts.Provider.ResponsesURL()
	c.streams = NewStreamConfig(opts, c.url)
	return c, nil
}

// Backoff is Codex's retry delay for the n-th retry (n >= 1): 200ms·2^(n-1), times a jitter
// in [0.9, 1.1). r is a uniform sample in [0,1).
func Backoff(n int, r float64) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 30 {
		n = 30 // keep the shift in range; the budget caps retries at 100 anyway
	}
	base := float64(200*time.Millisecond) * float64(uint64(1)<<(n-1))
	return time.Duration(base * (0.9 + 0.2*r))
}

// Stream is one model response being read. Close must be called when done with it.
type Stream struct {
	conn   StreamConn
	c      *Client
	prompt modelstream.Prompt
	body   []byte

	ev      wireEvent
	scratch wireScratch
}

// Stream sends the prompt and returns once the server accepted it (after request retries and
// any stream retries spent on failed connects). ctx governs the whole response: cancelling it
// ends the stream.
func (c *Client) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (*Stream, error) {
	if c.opts.Provider.IsAzure() {
		p.Store = true
	}
	body, err := requestBody(p)
	if err != nil {
		return nil, err
	}
	s := &Stream{c: c, prompt: p, body: body}
	wireBody := body
	if c.opts.CompressZstd {
		wireBody = compressZstd(body)
	}
	if err := s.conn.Open(ctx, &c.streams, responsesWire{s}, wireBody, obs); err != nil {
		return nil, err
	}
	return s, nil
}

// Body returns the request body that was sent (for logging and tests).
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *Error (classified)
// or the context's error.
func (s *Stream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	return s.conn.Next(ctx)
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (s *Stream) Close() error { return s.conn.Close() }

// responsesWire is what the Responses API adds to a StreamConn.
type responsesWire struct{ s *Stream }

func (w responsesWire) SetHeaders(req *http.Request) {
	w.s.c.setHeaders(req, w.s.prompt)
	if w.s.c.opts.CompressZstd {
		req.Header.Set("Content-Encoding", "zstd")
	}
}

// StartAttempt turns the answer's headers into events: rate limits, the model the server
// chose, reasoning included, the turn state.
func (w responsesWire) StartAttempt(resp *http.Response, evs []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, error) {
	if snap, ok := parseRateLimits(resp.Header); ok {
		evs = append(evs, modelstream.RateLimits{Snapshot: snap})
	}
	if m := resp.Header.Get("openai-model"); m != "" && m != w.s.prompt.Model {
		evs = append(evs, modelstream.ServerModel{Model: m})
	}
	if resp.Header.Get("x-reasoning-included") != "" {
		evs = append(evs, modelstream.ServerReasoningIncluded{})
	}
	if v := resp.Header.Get("x-codex-turn-state"); v != "" {
		evs = append(evs, modelstream.ServerTurnState{Token: v})
	}
	return evs, nil
}

func (w responsesWire) Decode(e sse.Event, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	ev, err := w.s.decode(e.Data)
	if err != nil || ev == nil {
		return out, false, err
	}
	_, done := ev.(modelstream.Completed)
	return append(out, ev), done, nil
}

// BodyEnded: a Responses stream is complete only with response.completed.
func (responsesWire) BodyEnded(out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	return out, false, nil
}

// Streamer adapts c to the public modelstream.Streamer a thread reads responses from.
func (c *Client) Streamer() modelstream.Streamer { return clientStreamer{c} }

type clientStreamer struct{ c *Client }

func (s clientStreamer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (modelstream.Stream, error) {
	st, err := s.c.Stream(ctx, p, obs)
	if err != nil {
		return nil, err
	}
	return st, nil
}
