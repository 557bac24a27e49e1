package chat

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/sse"
	"github.com/gocodex/gocodex/modelstream"
)

// reasonCut is the stream failure of a body that ended before the reply finished.
const reasonCut = "stream closed before the chat completion finished"

// Stream is one chat completion being read. Close must be called when done with it. The
// retry rules are the Responses client's (model.StreamConn): request retries (5xx,
// transport) inside every connect, stream retries (cut stream, idle timeout, retryable
// errors) reported to the observer before a fresh attempt.
type Stream struct {
	conn   model.StreamConn
	c      *Client
	prompt modelstream.Prompt
	tools  *toolSet
	body   []byte
	reply  reply // the current attempt's
}

// Body returns the request body that was sent.
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *model.Error
// (classified), *ResponseError (a reply the wire cannot read) or the context's error.
func (s *Stream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	return s.conn.Next(ctx)
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (s *Stream) Close() error { return s.conn.Close() }

// streamConfig is the chat wire's retry rules: the Responses client's, except that a
// cancelled context ends the stream for good and a client error is never retried.
func (c *Client) streamConfig() model.StreamConfig {
	cfg := model.NewStreamConfig(c.opts, c.url)
	cfg.CutMessage, cfg.StreamRetryable, cfg.CancelEndsStream = reasonCut, retryable, true
	return cfg
}

// retryable is model.Error.Retryable, except that a client error (401, 403, 404, ...) is
// never retried: asking again cannot fix a key or a model name.
func retryable(e *model.Error) bool {
	if e.Status >= 400 && e.Status < 500 && e.Status != http.StatusTooManyRequests && e.Status != http.StatusRequestTimeout {
		return false
	}
	return e.Retryable()
}

// chatWire is what Chat Completions adds to a model.StreamConn.
type chatWire struct{ s *Stream }

func (w chatWire) SetHeaders(req *http.Request) { model.SetRequestHeaders(req, w.s.c.opts, w.s.prompt) }

// StartAttempt refuses a body that is not an event stream (an HTML page, a non-streaming JSON
// answer) at once, as retrying cannot change it.
func (w chatWire) StartAttempt(resp *http.Response, evs []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, error) {
	s := w.s
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			return evs, &ResponseError{Provider: s.c.providerName(), Status: resp.StatusCode,
				Detail: fmt.Sprintf("answered with Content-Type %q instead of an event stream (is base_url %s right?): %s", ct, s.c.opts.Provider.BaseURL, snippet(data))}
		}
	}
	s.reply = reply{status: resp.StatusCode}
	return evs, nil
}

// Decode feeds one chunk to the reply; at [DONE] it appends the reply's items and Completed.
func (w chatWire) Decode(e sse.Event, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	evs, done, err := w.s.reply.feed(out, e.Data, w.s.tools, w.s.c.providerName())
	if err != nil {
		return out, false, err
	}
	if done {
		return w.finish(evs)
	}
	return evs, false, nil
}

// BodyEnded completes a reply that has its finish reason: a server may end the body, or keep
// it open, after the finish reason without [DONE].
func (w chatWire) BodyEnded(out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	if !w.s.reply.finished {
		return out, false, nil
	}
	return w.finish(out)
}

// finish appends the reply's items and Completed.
func (w chatWire) finish(out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	evs, err := w.s.reply.finish(w.s.tools, w.s.c.providerName())
	if err != nil {
		return out, false, err
	}
	return append(out, evs...), true, nil
}
