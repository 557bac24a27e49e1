package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/sse"
	"github.com/gocodex/gocodex/modelstream"
)

// Stream is one Messages response being read. Retries follow the Responses client: request
// retries (5xx, transport) inside each connect, stream retries (a cut or stalled stream, a
// retryable error event, a 429 with retry-after, a 5xx that outlived the request retries)
// reported to the RetryObserver. Close must be called when done with it.
type Stream struct {
	c     *Client
	ctx   context.Context
	body  []byte
	names toolNames
	obs   modelstream.RetryObserver

	streamRetries int
	delivered     bool // events of the current attempt reached the caller
	done          bool
	err           error
	pending       []modelstream.ResponseEvent

	// The current attempt.
	resp *http.Response
	rd   *sse.Reader
	dec  *decoder
	idle model.Timer

	mu        sync.Mutex
	cancel    context.CancelFunc
	idleFired bool
}

// Stream sends the prompt and returns once the server accepted it. ctx governs the whole
// response.
func (c *Client) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (*Stream, error) {
	body, names, err := c.buildRequest(p)
	if err != nil {
		return nil, err
	}
	s := &Stream{c: c, ctx: ctx, body: body, names: names, obs: obs}
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

// Body returns the request body (for logging and tests; it holds no credential).
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *model.Error or
// the context's error. Cancelling ctx interrupts a read waiting on the network.
func (s *Stream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	if ctx != s.ctx && ctx.Done() != nil {
		stop := context.AfterFunc(ctx, s.abortAttempt)
		defer stop()
	}
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			if len(s.pending) == 1 {
				s.pending = s.pending[:0] // keep the array: most events come one at a time
			} else {
				s.pending = s.pending[1:]
			}
			s.delivered = true
			return ev, nil
		}
		if s.done {
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		if err := firstCtxErr(ctx, s.ctx); err != nil {
			return nil, err
		}
		var err error
		if s.rd == nil {
			err = s.connect(ctx)
		} else {
			err = s.read(ctx)
		}
		if err != nil {
			if err := s.retryOrFail(ctx, err); err != nil {
				return nil, err
			}
		}
	}
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (s *Stream) Close() error {
	s.endAttempt()
	s.done = true
	s.pending = nil
	return nil
}

func (s *Stream) abortAttempt() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func firstCtxErr(ctxs ...context.Context) error {
	for _, c := range ctxs {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// retryOrFail returns nil to try again (after the backoff) or the error that ends the stream.
func (s *Stream) retryOrFail(ctx context.Context, err error) error {
	s.endAttempt()
	if ce := firstCtxErr(ctx, s.ctx); ce != nil {
		return ce // a later Next with a live context reconnects
	}
	var me *model.Error
	if !errors.As(err, &me) || !me.Retryable() {
		return s.fail(err)
	}
	budget := s.c.opts.Provider.StreamRetries()
	if s.streamRetries >= budget {
		return s.fail(err)
	}
	s.streamRetries++
	delay := me.RetryAfter
	if delay <= 0 && !me.HasRetryAfter {
		delay = model.Backoff(s.streamRetries, s.c.rand())
	}
	if s.obs != nil {
		s.obs(modelstream.RetryInfo{Attempt: s.streamRetries, Max: budget, Delay: delay, Err: err, Stream: true, Restarted: s.delivered})
	}
	s.delivered = false
	s.pending = nil
	if err := s.c.clock.Sleep(ctx, delay); err != nil {
		return s.fail(err)
	}
	if err := s.ctx.Err(); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *Stream) fail(err error) error {
	s.done, s.err = true, err
	return err
}

// connect sends the request, retrying 5xx answers and transport failures up to
// request_max_retries, and installs the SSE reader of a 2xx answer.
func (s *Stream) connect(ctx context.Context) error {
	c := s.c
	budget := c.opts.Provider.RequestRetries()
	for attempt := 0; ; attempt++ {
		resp, err := s.send()
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			s.startAttempt(resp)
			return nil
		}
		var cerr *model.Error
		if err != nil {
			s.endAttempt()
			if ce := firstCtxErr(ctx, s.ctx); ce != nil {
				return ce
			}
			cerr = &model.Error{Kind: model.KindTransport, Err: err, URL: c.url}
		} else {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			s.endAttempt()
			cerr = c.classifyStatus(resp.StatusCode, resp.Header, data)
		}
		retry := err != nil || (resp.StatusCode >= 500 && cerr.Retryable())
		if !retry || attempt >= budget {
			return cerr
		}
		delay := model.Backoff(attempt+1, c.rand())
		if s.obs != nil {
			s.obs(modelstream.RetryInfo{Attempt: attempt + 1, Max: budget, Delay: delay, Err: cerr})
		}
		if err := c.clock.Sleep(ctx, delay); err != nil {
			return err
		}
	}
}

func (s *Stream) send() (*http.Response, error) {
	if f := s.c.opts.SSEFixture; f != "" {
		file, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("open SSE fixture: %w", err)
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: file}, nil
	}
	actx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, s.c.url, bytes.NewReader(s.body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	s.c.setHeaders(req)
	return s.c.http.Do(req)
}

// startAttempt installs a successful response: reader, decoder, idle timer.
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
	s.dec = newDecoder(s.names, s.c.name, s.c.classifyEvent)
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
	s.rd, s.dec = nil, nil
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

// read decodes the next SSE event of the current attempt into s.pending.
func (s *Stream) read(ctx context.Context) error {
	e, err := s.rd.Next()
	if err != nil {
		if ce := firstCtxErr(ctx, s.ctx); ce != nil {
			return ce
		}
		s.mu.Lock()
		idle := s.idleFired
		s.mu.Unlock()
		switch {
		case idle:
			return &model.Error{Kind: model.KindStream, Message: model.ReasonIdleTimeout}
		case err == io.EOF:
			return &model.Error{Kind: model.KindStream, Message: "stream closed before message_stop"}
		}
		return &model.Error{Kind: model.KindStream, Message: err.Error(), Err: err}
	}
	var done bool
	s.pending, done, err = s.dec.decode(e.Type, e.Data, s.pending)
	if err != nil {
		return err
	}
	if done {
		s.endAttempt()
		s.done = true
	}
	return nil
}
