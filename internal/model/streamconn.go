package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"

	"github.com/gocodex/gocodex/internal/model/sse"
	"github.com/gocodex/gocodex/modelstream"
)

// StreamWire is what one wire adds to the connection and retry machinery a StreamConn
// shares between the wires (Responses, Chat Completions, Anthropic Messages): the headers of
// its request, what it reads from a successful answer, and how it decodes events.
type StreamWire interface {
	// SetHeaders puts the wire's headers on one attempt's request.
	SetHeaders(req *http.Request)
	// StartAttempt prepares decoding a 2xx answer and appends the events its headers carry
	// (rate limits, server model); those do not count as delivered output for
	// RetryInfo.Restarted. An error refuses the answer for good (the wire has read and closed
	// its body).
	StartAttempt(resp *http.Response, notices []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, error)
	// Decode appends the events one SSE event yields to out; done means the reply completed
	// (its last event is appended). On error out is returned as it came.
	Decode(ev sse.Event, out []modelstream.ResponseEvent) (_ []modelstream.ResponseEvent, done bool, err error)
	// BodyEnded is told the body ended or went idle before Decode said done; done means the
	// reply is complete anyway, with the events appended that finish it. Otherwise the
	// attempt fails with the idle timeout or StreamConfig.CutMessage.
	BodyEnded(out []modelstream.ResponseEvent) (_ []modelstream.ResponseEvent, done bool, err error)
}

// StreamConfig is what a wire's client sets up once for all its streams. The fields after
// Auth are the real differences between the wires' retry rules.
type StreamConfig struct {
	// Provider supplies request_max_retries, stream_max_retries and the idle timeout.
	Provider ProviderInfo
	HTTP     *http.Client
	Clock    Clock
	// Rand supplies backoff jitter in [0,1).
	Rand func() float64
	// URL is where requests go; transport errors name it.
	URL string
	// SSEFixture, when set, names a file every attempt reads instead of sending a request.
	SSEFixture string
	// Auth, when set, authorizes each request and recovers from a 401 (ChatGPT sign-in).
	Auth Authorizer
	// ClassifyStatus turns a non-2xx answer into an *Error; nil classifies as the Responses
	// API does (ClassifyHTTPError).
	ClassifyStatus func(status int, header http.Header, body []byte) *Error

	// CutMessage is the stream error's message for a body that ends before the reply
	// completed (each wire names what it was waiting for).
	CutMessage string
	// StreamRetryable says which failed attempts a stream retry repeats; nil means
	// (*Error).Retryable. The chat wire never repeats a 4xx other than 408 and 429.
	StreamRetryable func(*Error) bool
	// CancelEndsStream makes a cancelled context end the stream for good, so later Next
	// calls return that error (the chat wire); otherwise a later Next with a live context
	// reconnects.
	CancelEndsStream bool
	// NextContextPerCall makes a Next context interrupt only the call it was passed to, and
	// Next check the response's context as well before reading (the Anthropic wire).
	// Otherwise a Next context stays watched until Close or a Next with another context.
	NextContextPerCall bool
}

// NewStreamConfig is the Responses API's StreamConfig for a client with opts sending to url,
// with the defaults of opts applied: an HTTP client without a total timeout (streams are
// long), the wall clock, math/rand/v2 jitter. Another wire adjusts what differs.
func NewStreamConfig(opts ClientOptions, url string) StreamConfig {
	cfg := StreamConfig{Provider: opts.Provider, HTTP: opts.HTTPClient, Clock: opts.Clock, Rand: opts.Rand, URL: url,
		SSEFixture: opts.SSEFixture, Auth: opts.Auth, CutMessage: ReasonStreamClosed}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{}
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	return cfg
}

// StreamConn is one streamed response's connection and retry machinery: request retries
// with backoff inside every connect (5xx and transport errors; never 429), stream retries
// (stream_max_retries) for cut, stalled or failed attempts reported to the RetryObserver,
// the idle timer re-armed by every byte, and cancellation from the response's or a Next
// context. A wire's Stream embeds one (as a field), calls Open, and passes Next and Close
// through.
type StreamConn struct {
	cfg  *StreamConfig
	wire StreamWire
	ctx  context.Context
	body []byte
	obs  modelstream.RetryObserver

	streamRetries int  // stream retries used so far
	delivered     bool // events of the current attempt reached the caller
	done          bool
	err           error // the error that ended the stream, returned again by Next

	// Events decoded and not yet returned, from pendingAt; the ones before quiet are header
	// notices, not output.
	pending   []modelstream.ResponseEvent
	pendingAt int
	quiet     int

	// The current attempt.
	resp *http.Response
	rd   *sse.Reader
	idle Timer

	mu        sync.Mutex
	cancel    context.CancelFunc
	idleFired bool

	nextCtx  context.Context
	stopNext func() bool
}

// Open sends body and returns once the server accepted it (after request retries and any
// stream retries spent on failed connects). ctx governs the whole response: cancelling it
// ends the stream.
func (c *StreamConn) Open(ctx context.Context, cfg *StreamConfig, wire StreamWire, body []byte, obs modelstream.RetryObserver) error {
	c.cfg, c.wire, c.ctx, c.body, c.obs = cfg, wire, ctx, body, obs
	for {
		err := c.connect(ctx)
		if err == nil {
			return nil
		}
		if err := c.retryOrFail(ctx, err); err != nil {
			return err
		}
	}
}

// Next returns the next event; after the reply completed it returns io.EOF.
func (c *StreamConn) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	if c.cfg.NextContextPerCall {
		if ctx != c.ctx && ctx.Done() != nil {
			stop := context.AfterFunc(ctx, c.interrupt)
			defer stop()
		}
	} else if ctx != c.nextCtx {
		c.watch(ctx)
	}
	return c.next(ctx)
}

func (c *StreamConn) next(ctx context.Context) (modelstream.ResponseEvent, error) {
	for {
		if c.pendingAt < len(c.pending) {
			ev := c.pending[c.pendingAt]
			c.pending[c.pendingAt] = nil
			c.pendingAt++
			if c.pendingAt > c.quiet {
				c.delivered = true
			}
			if c.pendingAt == len(c.pending) {
				c.pending, c.pendingAt, c.quiet = c.pending[:0], 0, 0 // reuse the array
			}
			return ev, nil
		}
		if c.done {
			if c.err != nil {
				return nil, c.err
			}
			return nil, io.EOF
		}
		if err := c.nextCtxErr(ctx); err != nil {
			return nil, err
		}
		var err error
		if c.rd == nil {
			err = c.connect(ctx)
		} else {
			err = c.read(ctx)
		}
		if err != nil {
			if err := c.retryOrFail(ctx, err); err != nil {
				return nil, err
			}
		}
	}
}

func (c *StreamConn) nextCtxErr(ctx context.Context) error {
	if c.cfg.NextContextPerCall {
		return firstCtxErr(ctx, c.ctx)
	}
	return ctx.Err()
}

// watch makes a cancelled Next context interrupt a blocked read of the current attempt.
func (c *StreamConn) watch(ctx context.Context) {
	if c.stopNext != nil {
		c.stopNext()
		c.stopNext = nil
	}
	c.nextCtx = ctx
	if ctx.Done() != nil && ctx != c.ctx {
		c.stopNext = context.AfterFunc(ctx, c.interrupt)
	}
}

// interrupt cancels the current attempt's request; it runs on timer and context goroutines.
func (c *StreamConn) interrupt() {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (c *StreamConn) Close() error {
	c.endAttempt()
	if c.stopNext != nil {
		c.stopNext()
		c.stopNext = nil
	}
	c.done = true
	c.pending, c.pendingAt, c.quiet = nil, 0, 0
	return nil
}

// retryOrFail decides what to do with a failed attempt: nil means "retry now" (after the
// backoff sleep); otherwise the error to return.
func (c *StreamConn) retryOrFail(ctx context.Context, err error) error {
	c.endAttempt()
	if ce := firstCtxErr(ctx, c.ctx); ce != nil {
		if c.cfg.CancelEndsStream {
			return c.fail(ce)
		}
		return ce // a later Next with a live context reconnects
	}
	var me *Error
	if !errors.As(err, &me) || !c.streamRetryable(me) {
		return c.fail(err)
	}
	max := c.cfg.Provider.StreamRetries()
	if c.streamRetries >= max {
		return c.fail(err)
	}
	c.streamRetries++
	delay := me.RetryAfter
	if delay <= 0 && !me.HasRetryAfter {
		delay = Backoff(c.streamRetries, c.cfg.Rand())
	}
	if c.obs != nil {
		c.obs(modelstream.RetryInfo{Attempt: c.streamRetries, Max: max, Delay: delay, Err: err, Stream: true, Restarted: c.delivered})
	}
	c.delivered = false
	c.pending, c.pendingAt, c.quiet = c.pending[:0], 0, 0 // what the failed attempt decoded is dropped
	if err := c.cfg.Clock.Sleep(ctx, delay); err != nil {
		return c.fail(err)
	}
	if err := c.ctx.Err(); err != nil {
		return c.fail(err)
	}
	return nil
}

func (c *StreamConn) streamRetryable(e *Error) bool {
	if c.cfg.StreamRetryable != nil {
		return c.cfg.StreamRetryable(e)
	}
	return e.Retryable()
}

// fail ends the stream; later Next calls return the same error.
func (c *StreamConn) fail(err error) error {
	c.done, c.err = true, err
	c.pending, c.pendingAt, c.quiet = nil, 0, 0
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
// 429) and, on success, starts reading the stream.
func (c *StreamConn) connect(ctx context.Context) error {
	cfg := c.cfg
	max := cfg.Provider.RequestRetries()
	for attempt := 0; ; attempt++ {
		resp, err := c.send()
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if cfg.Auth != nil {
				cfg.Auth.Succeeded()
			}
			return c.startAttempt(resp)
		}
		var aerr *authError
		if errors.As(err, &aerr) {
			c.endAttempt()
			return aerr.err
		}
		if err == nil && resp.StatusCode == http.StatusUnauthorized && cfg.Auth != nil {
			again, aerr := cfg.Auth.Unauthorized(ctx)
			if aerr != nil {
				resp.Body.Close()
				c.endAttempt()
				return aerr
			}
			if again {
				resp.Body.Close()
				c.endAttempt()
				attempt-- // a credential recovery is not a retry
				continue
			}
		}
		var cerr *Error
		retry := false
		if err != nil {
			c.endAttempt()
			if ce := firstCtxErr(ctx, c.ctx); ce != nil {
				return ce
			}
			cerr = &Error{Kind: KindTransport, Err: err, URL: cfg.URL}
			retry = true
		} else {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			c.endAttempt()
			if cfg.ClassifyStatus != nil {
				cerr = cfg.ClassifyStatus(resp.StatusCode, resp.Header, data)
			} else {
				cerr = classifyHTTP(resp.StatusCode, resp.Header, data, cfg.URL)
			}
			retry = resp.StatusCode >= 500 && cerr.Retryable()
		}
		if !retry || attempt >= max {
			return cerr
		}
		delay := Backoff(attempt+1, cfg.Rand())
		if c.obs != nil {
			c.obs(modelstream.RetryInfo{Attempt: attempt + 1, Max: max, Delay: delay, Err: cerr})
		}
		if err := cfg.Clock.Sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// send makes one attempt's request (or opens the SSE fixture).
func (c *StreamConn) send() (*http.Response, error) {
	if f := c.cfg.SSEFixture; f != "" {
		file, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("open SSE fixture: %w", err)
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: file}, nil
	}
	actx, cancel := context.WithCancel(c.ctx)
	// Published before Do so a cancelled Next context can interrupt the connect.
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.cfg.URL, bytes.NewReader(c.body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	c.wire.SetHeaders(req)
	if c.cfg.Auth != nil {
		if err := c.cfg.Auth.Authorize(actx, req.Header); err != nil {
			return nil, &authError{err}
		}
	}
	return c.cfg.HTTP.Do(req)
}

// startAttempt installs a successful response: the wire's header events, the idle timer,
// the SSE reader.
func (c *StreamConn) startAttempt(resp *http.Response) error {
	pending, err := c.wire.StartAttempt(resp, c.pending)
	if err != nil {
		c.endAttempt()
		return err
	}
	c.pending, c.quiet = pending, len(pending)
	c.mu.Lock()
	c.resp, c.idleFired = resp, false
	c.mu.Unlock()
	c.idle = c.cfg.Clock.AfterFunc(c.cfg.Provider.StreamIdleTimeout(), c.idleExpired)
	c.rd = sse.NewReader(idleReader{c})
	return nil
}

// idleExpired runs on the idle timer's goroutine: the attempt stalled.
func (c *StreamConn) idleExpired() {
	c.mu.Lock()
	c.idleFired = true
	c.mu.Unlock()
	c.interrupt()
}

// endAttempt drops the current connection, if any.
func (c *StreamConn) endAttempt() {
	if c.idle != nil {
		c.idle.Stop()
		c.idle = nil
	}
	c.mu.Lock()
	resp, cancel := c.resp, c.cancel
	c.resp, c.cancel = nil, nil
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if resp != nil {
		resp.Body.Close()
	}
	c.rd = nil
}

// idleReader re-arms the idle timer whenever bytes arrive.
type idleReader struct{ c *StreamConn }

func (r idleReader) Read(p []byte) (int, error) {
	n, err := r.c.resp.Body.Read(p)
	if n > 0 && r.c.idle != nil {
		r.c.idle.Reset(r.c.cfg.Provider.StreamIdleTimeout())
	}
	return n, err
}

// read decodes the next SSE event of the current attempt into pending events.
func (c *StreamConn) read(ctx context.Context) error {
	e, err := c.rd.Next()
	if err != nil {
		if ce := firstCtxErr(ctx, c.ctx); ce != nil {
			return ce
		}
		c.mu.Lock()
		idle := c.idleFired
		c.mu.Unlock()
		if idle || err == io.EOF {
			evs, done, ferr := c.wire.BodyEnded(c.pending)
			if ferr != nil {
				return ferr
			}
			if done {
				c.complete(evs)
				return nil
			}
		}
		switch {
		case idle:
			return &Error{Kind: KindStream, Message: ReasonIdleTimeout}
		case err == io.EOF:
			return &Error{Kind: KindStream, Message: c.cfg.CutMessage}
		}
		return &Error{Kind: KindStream, Message: err.Error(), Err: err}
	}
	evs, done, err := c.wire.Decode(e, c.pending)
	c.rd.Release() // a long answer's text is decoded: its raw line need not wait for the next event
	if err != nil {
		return err
	}
	if done {
		c.complete(evs)
		return nil
	}
	c.pending = evs
	return nil
}

// complete ends the attempt with the reply's last events.
func (c *StreamConn) complete(evs []modelstream.ResponseEvent) {
	c.pending = evs
	c.endAttempt()
	c.done = true
}
