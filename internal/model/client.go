package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gocodex/gocodex/modelstream"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
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
	http       *http.Client
	clock      Clock
	rand       func() float64
	log        *slog.Logger
	originator string
	userAgent  string
	url        string
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
	c := &Client{opts: opts, http: opts.HTTPClient, clock: opts.Clock, rand: opts.Rand, log: opts.Logger}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.clock == nil {
		c.clock = RealClock{}
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.originator = opts.Originator
	if c.originator == "" {
		c.originator = DefaultOriginator
	}
	c.userAgent = opts.UserAgent
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent(c.originator)
	}
	c.url = opts.Provider.ResponsesURL()
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
	c      *Client
	ctx    context.Context
	prompt Prompt
	body   []byte
	// wireBody is what is sent when it differs from body (compressed).
	wireBody []byte
	obs      RetryObserver

	streamRetries int // stream retries used so far
	delivered     bool
	err           error // the error that ended the stream, returned again by Next

	// The current attempt.
	resp    *http.Response
	rd      *sse.Reader
	cancel  context.CancelFunc
	idle    Timer
	pending []ResponseEvent
	done    bool

	mu        sync.Mutex
	idleFired bool

	nextCtx  context.Context
	stopNext func() bool
	ev       wireEvent
	scratch  wireScratch
}

// Stream sends the prompt and returns once the server accepted it (after request retries and
// any stream retries spent on failed connects). ctx governs the whole response: cancelling it
// ends the stream.
func (c *Client) Stream(ctx context.Context, p Prompt, obs RetryObserver) (*Stream, error) {
	if c.opts.Provider.IsAzure() {
		p.Store = true
	}
	body, err := requestBody(p)
	if err != nil {
		return nil, err
	}
	s := &Stream{c: c, ctx: ctx, prompt: p, body: body, obs: obs}
	if c.opts.CompressZstd {
		s.wireBody = compressZstd(body)
	}
	for {
		err := s.connect(ctx)
		if err == nil {
			return s, nil
		}
		if err := s.retryOrFail(ctx, err); err != nil {
			return nil, err
		}
	}
}

// Body returns the request body that was sent (for logging and tests).
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *Error (classified)
// or the context's error.
func (s *Stream) Next(ctx context.Context) (ResponseEvent, error) {
	if ctx != s.nextCtx {
		s.watch(ctx)
	}
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			return ev, nil
		}
		if s.done {
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.rd == nil {
			if err := s.connect(ctx); err != nil {
				if err := s.retryOrFail(ctx, err); err != nil {
					return nil, err
				}
				continue
			}
			continue
		}
		ev, err := s.read(ctx)
		if err == nil {
			if ev != nil {
				s.delivered = true
				return ev, nil
			}
			continue
		}
		if err := s.retryOrFail(ctx, err); err != nil {
			return nil, err
		}
	}
}

// watch makes a cancelled Next context interrupt a blocked read of the current attempt.
func (s *Stream) watch(ctx context.Context) {
	if s.stopNext != nil {
		s.stopNext()
		s.stopNext = nil
	}
	s.nextCtx = ctx
	if ctx.Done() != nil && ctx != s.ctx {
		s.stopNext = context.AfterFunc(ctx, func() {
			s.mu.Lock()
			cancel := s.cancel
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		})
	}
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (s *Stream) Close() error {
	s.endAttempt()
	if s.stopNext != nil {
		s.stopNext()
		s.stopNext = nil
	}
	s.done = true
	s.pending = nil
	return nil
}

// retryOrFail decides what to do with a failed attempt: nil means "retry now" (after the
// backoff sleep); otherwise the error to return.
func (s *Stream) retryOrFail(ctx context.Context, err error) error {
	s.endAttempt()
	if ce := firstCtxErr(ctx, s.ctx); ce != nil {
		return ce
	}
	var me *Error
	if !errors.As(err, &me) || !me.Retryable() {
		return s.fail(err)
	}
	max := s.c.opts.Provider.StreamRetries()
	if s.streamRetries >= max {
		return s.fail(err)
	}
	s.streamRetries++
	delay := me.RetryAfter
	if delay <= 0 && !me.HasRetryAfter {
		delay = Backoff(s.streamRetries, s.c.rand())
	}
	if s.obs != nil {
		s.obs(RetryInfo{Attempt: s.streamRetries, Max: max, Delay: delay, Err: err, Stream: true, Restarted: s.delivered})
	}
	s.delivered = false
	if err := s.c.clock.Sleep(ctx, delay); err != nil {
		return s.fail(err)
	}
	if ctx != s.ctx {
		if err := s.ctx.Err(); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

// fail ends the stream; later Next calls return the same error.
func (s *Stream) fail(err error) error {
	s.done, s.err = true, err
	return err
}

func firstCtxErr(ctxs ...context.Context) error {
	for _, c := range ctxs {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// connect performs one request with request-level retries (5xx and transport errors, never
// 429) and, on success, prepares the SSE reader and the header-derived events.
func (s *Stream) connect(ctx context.Context) error {
	c := s.c
	max := c.opts.Provider.RequestRetries()
	for attempt := 0; ; attempt++ {
		resp, err := s.send()
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if c.opts.Auth != nil {
				c.opts.Auth.Succeeded()
			}
			s.startAttempt(resp)
			return nil
		}
		var aerr *authError
		if errors.As(err, &aerr) {
			s.endAttempt()
			return aerr.err
		}
		if err == nil && resp.StatusCode == http.StatusUnauthorized && c.opts.Auth != nil {
			again, aerr := c.opts.Auth.Unauthorized(ctx)
			if aerr != nil {
				resp.Body.Close()
				s.endAttempt()
				return aerr
			}
			if again {
				resp.Body.Close()
				s.endAttempt()
				attempt-- // a credential recovery is not a retry
				continue
			}
		}
		var cerr *Error
		retry := false
		if err != nil {
			s.endAttempt()
			if ce := firstCtxErr(ctx, s.ctx); ce != nil {
				return ce
			}
			cerr = &Error{Kind: KindTransport, Err: err, URL: c.url}
			retry = true
		} else {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			s.endAttempt()
			cerr = classifyHTTP(resp.StatusCode, resp.Header, data, c.url)
			retry = resp.StatusCode >= 500 && cerr.Retryable()
		}
		if !retry || attempt >= max {
			return cerr
		}
		delay := Backoff(attempt+1, c.rand())
		if s.obs != nil {
			s.obs(RetryInfo{Attempt: attempt + 1, Max: max, Delay: delay, Err: cerr})
		}
		if err := c.clock.Sleep(ctx, delay); err != nil {
			return err
		}
	}
}

func (s *Stream) send() (*http.Response, error) {
	if s.c.opts.SSEFixture != "" {
		f, err := os.Open(s.c.opts.SSEFixture)
		if err != nil {
			return nil, fmt.Errorf("open SSE fixture: %w", err)
		}
		s.mu.Lock()
		s.cancel = func() {}
		s.mu.Unlock()
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: f}, nil
	}
	actx, cancel := context.WithCancel(s.ctx)
	// Published before Do so a cancelled Next context can interrupt the connect.
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	body := s.body
	if s.wireBody != nil {
		body = s.wireBody
	}
	req, err := http.NewRequestWithContext(actx, http.MethodPost, s.c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	s.c.setHeaders(req, s.prompt)
	if s.wireBody != nil {
		req.Header.Set("Content-Encoding", "zstd")
	}
	if s.c.opts.Auth != nil {
		if err := s.c.opts.Auth.Authorize(actx, req.Header); err != nil {
			return nil, &authError{err}
		}
	}
	return s.c.http.Do(req)
}

// startAttempt installs a successful response: SSE reader, idle timer, header events.
func (s *Stream) startAttempt(resp *http.Response) {
	s.mu.Lock()
	s.resp, s.idleFired = resp, false
	s.mu.Unlock()
	s.idle = s.c.clock.AfterFunc(s.c.opts.Provider.StreamIdleTimeout(), func() {
		s.mu.Lock()
		s.idleFired = true
		cancel := s.cancel
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
	s.rd = sse.NewReader(idleReader{s})
	if snap, ok := parseRateLimits(resp.Header); ok {
		s.pending = append(s.pending, RateLimits{Snapshot: snap})
	}
	if m := resp.Header.Get("openai-model"); m != "" && m != s.prompt.Model {
		s.pending = append(s.pending, ServerModel{Model: m})
	}
	if resp.Header.Get("x-reasoning-included") != "" {
		s.pending = append(s.pending, ServerReasoningIncluded{})
	}
	if v := resp.Header.Get("x-codex-turn-state"); v != "" {
		s.pending = append(s.pending, ServerTurnState{Token: v})
	}
}

// endAttempt drops the current connection, if any.
func (s *Stream) endAttempt() {
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	s.mu.Lock()
	resp, cancel := s.resp, s.cancel
	s.resp, s.cancel = nil, nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if resp != nil {
		resp.Body.Close()
	}
	s.rd = nil
}

// idleReader re-arms the idle timer whenever bytes arrive.
type idleReader struct{ s *Stream }

func (r idleReader) Read(p []byte) (int, error) {
	n, err := r.s.resp.Body.Read(p)
	if n > 0 && r.s.idle != nil {
		r.s.idle.Reset(r.s.c.opts.Provider.StreamIdleTimeout())
	}
	return n, err
}

// read returns the next event of the current attempt; (nil, nil) for an event to skip.
func (s *Stream) read(ctx context.Context) (ResponseEvent, error) {
	e, err := s.rd.Next()
	if err != nil {
		if ce := firstCtxErr(ctx, s.ctx); ce != nil {
			return nil, ce
		}
		s.mu.Lock()
		idle := s.idleFired
		s.mu.Unlock()
		if idle {
			return nil, &Error{Kind: KindStream, Message: ReasonIdleTimeout}
		}
		if err == io.EOF {
			return nil, &Error{Kind: KindStream, Message: ReasonStreamClosed}
		}
		return nil, &Error{Kind: KindStream, Message: err.Error(), Err: err}
	}
	ev, ferr := s.decode(e.Data)
	if ferr != nil {
		return nil, ferr
	}
	if _, ok := ev.(Completed); ok {
		s.endAttempt()
		s.done = true
	}
	return ev, nil
}

// Streamer adapts c to the public modelstream.Streamer a thread reads responses from.
func (c *Client) Streamer() modelstream.Streamer { return clientStreamer{c} }

type clientStreamer struct{ c *Client }

func (s clientStreamer) Stream(ctx context.Context, p Prompt, obs RetryObserver) (modelstream.Stream, error) {
	st, err := s.c.Stream(ctx, p, obs)
	if err != nil {
		return nil, err
	}
	return st, nil
}
