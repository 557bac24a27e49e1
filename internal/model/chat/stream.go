package chat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/sse"
)

// reasonCut is the stream failure of a body that ended before the reply finished.
const reasonCut = "stream closed before the chat completion finished"

// Stream is one chat completion being read. Close must be called when done with it. The
// retry rules are the Responses client's: request retries (5xx, transport) inside every
// connect, stream retries (cut stream, idle timeout, retryable errors) reported to the
// observer before a fresh attempt.
type Stream struct {
	c      *Client
	ctx    context.Context
	prompt model.Prompt
	tools  *toolSet
	body   []byte
	obs    model.RetryObserver

	streamRetries int
	delivered     bool
	err           error

	// The current attempt.
	resp      *http.Response
	rd        *sse.Reader
	cancel    context.CancelFunc
	idle      model.Timer
	reply     reply
	pending   []model.ResponseEvent // events decoded and not yet returned, from pendingAt
	pendingAt int
	done      bool

	mu        sync.Mutex
	idleFired bool

	nextCtx  context.Context
	stopNext func() bool
}

// Body returns the request body that was sent.
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *model.Error
// (classified), *ResponseError (a reply the wire cannot read) or the context's error.
func (s *Stream) Next(ctx context.Context) (model.ResponseEvent, error) {
	if ctx != s.nextCtx {
		s.watch(ctx)
	}
	for {
		if s.pendingAt < len(s.pending) {
			ev := s.pending[s.pendingAt]
			s.pending[s.pendingAt] = nil
			s.pendingAt++
			if s.pendingAt == len(s.pending) {
				s.pending, s.pendingAt = s.pending[:0], 0 // reuse the array for the next chunk
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
		if err := ctx.Err(); err != nil {
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

// watch makes a cancelled Next context interrupt a blocked read of the current attempt.
func (s *Stream) watch(ctx context.Context) {
	if s.stopNext != nil {
		s.stopNext()
		s.stopNext = nil
	}
	s.nextCtx = ctx
	if ctx.Done() != nil && ctx != s.ctx {
		s.stopNext = context.AfterFunc(ctx, s.interrupt)
	}
}

// interrupt cancels the current attempt's request; it runs on timer and context goroutines.
func (s *Stream) interrupt() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
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
	s.pending, s.pendingAt = nil, 0
	return nil
}

// retryOrFail returns nil to try again (after the backoff) or the error that ends the stream.
func (s *Stream) retryOrFail(ctx context.Context, err error) error {
	s.endAttempt()
	if ce := firstCtxErr(ctx, s.ctx); ce != nil {
		return s.fail(ce)
	}
	var me *model.Error
	if !errors.As(err, &me) || !retryable(me) {
		return s.fail(err)
	}
	max := s.c.opts.Provider.StreamRetries()
	if s.streamRetries >= max {
		return s.fail(err)
	}
	s.streamRetries++
	delay := me.RetryAfter
	if delay <= 0 && !me.HasRetryAfter {
		delay = model.Backoff(s.streamRetries, s.c.rand())
	}
	if s.obs != nil {
		s.obs(model.RetryInfo{Attempt: s.streamRetries, Max: max, Delay: delay, Err: err, Stream: true, Restarted: s.delivered})
	}
	s.delivered = false
	if err := s.c.clock.Sleep(ctx, delay); err != nil {
		return s.fail(err)
	}
	if err := s.ctx.Err(); err != nil {
		return s.fail(err)
	}
	return nil
}

// retryable is model.Error.Retryable, except that a client error (401, 403, 404, ...) is
// never retried: asking again cannot fix a key or a model name.
func retryable(e *model.Error) bool {
	if e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && e.Status != http.StatusRequestTimeout {
		return false
	}
	return e.Retryable()
}

func (s *Stream) fail(err error) error {
	s.done, s.err = true, err
	s.pending, s.pendingAt = nil, 0
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

// connect performs one request with request-level retries (5xx and transport errors) and,
// on success, starts reading the stream.
func (s *Stream) connect(ctx context.Context) error {
	c := s.c
	max := c.opts.Provider.RequestRetries()
	for attempt := 0; ; attempt++ {
		resp, err := s.send()
		var cerr *model.Error
		switch {
		case err != nil:
			s.endAttempt()
			if ce := firstCtxErr(ctx, s.ctx); ce != nil {
				return ce
			}
			cerr = &model.Error{Kind: model.KindTransport, Err: err, URL: c.url}
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			return s.startAttempt(resp)
		default:
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			s.endAttempt()
			cerr = model.ClassifyHTTPError(resp.StatusCode, resp.Header, data, c.url)
		}
		if (cerr.Status != 0 && cerr.Status < 500) || !cerr.Retryable() || attempt >= max {
			return cerr
		}
		delay := model.Backoff(attempt+1, c.rand())
		if s.obs != nil {
			s.obs(model.RetryInfo{Attempt: attempt + 1, Max: max, Delay: delay, Err: cerr})
		}
		if err := c.clock.Sleep(ctx, delay); err != nil {
			return err
		}
	}
}

func (s *Stream) send() (*http.Response, error) {
	actx, cancel := context.WithCancel(s.ctx)
	// Published before Do so a cancelled Next context can interrupt the connect.
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, s.c.url, bytes.NewReader(s.body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	model.SetRequestHeaders(req, s.c.opts, s.prompt)
	return s.c.http.Do(req)
}

// startAttempt installs a successful response: a body that is not an event stream (an HTML
// page, a non-streaming JSON answer) is refused at once, as retrying cannot change it.
func (s *Stream) startAttempt(resp *http.Response) error {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			s.endAttempt()
			return &ResponseError{Provider: s.c.providerName(), Status: resp.StatusCode,
				Detail: fmt.Sprintf("answered with Content-Type %q instead of an event stream (is base_url %s right?): %s", ct, s.c.opts.Provider.BaseURL, snippet(data))}
		}
	}
	s.mu.Lock()
	s.resp, s.idleFired = resp, false
	s.mu.Unlock()
	s.idle = s.c.clock.AfterFunc(s.c.opts.Provider.StreamIdleTimeout(), func() {
		s.mu.Lock()
		s.idleFired = true
		s.mu.Unlock()
		s.interrupt()
	})
	s.rd = sse.NewReader(idleReader{s})
	s.reply = reply{status: resp.StatusCode}
	return nil
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

// read decodes the next SSE event of the current attempt into pending events.
func (s *Stream) read(ctx context.Context) error {
	e, err := s.rd.Next()
	if err != nil {
		if ce := firstCtxErr(ctx, s.ctx); ce != nil {
			return ce
		}
		s.mu.Lock()
		idle := s.idleFired
		s.mu.Unlock()
		if idle {
			if s.reply.finished {
				// The reply finished but the server kept the body open without [DONE].
				return s.complete()
			}
			return &model.Error{Kind: model.KindStream, Message: model.ReasonIdleTimeout}
		}
		if err == io.EOF {
			// A server that ends the body after the finish reason without [DONE] still
			// finished its reply.
			if s.reply.finished {
				return s.complete()
			}
			return &model.Error{Kind: model.KindStream, Message: reasonCut}
		}
		return &model.Error{Kind: model.KindStream, Message: err.Error(), Err: err}
	}
	evs, done, err := s.reply.feed(s.pending, e.Data, s.tools, s.c.providerName())
	if err != nil {
		return err
	}
	s.pending = evs
	if done {
		return s.complete()
	}
	return nil
}

// complete ends the attempt with the reply's items and Completed.
func (s *Stream) complete() error {
	evs, err := s.reply.finish(s.tools, s.c.providerName())
	if err != nil {
		return err
	}
	s.pending = append(s.pending, evs...)
	s.endAttempt()
	s.done = true
	return nil
}
