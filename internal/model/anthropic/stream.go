package anthropic

import (
	"context"
	"net/http"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/sse"
	"github.com/gocodex/gocodex/modelstream"
)

// Stream is one Messages response being read. Retries follow the Responses client
// (model.StreamConn): request retries (5xx, transport) inside each connect, stream retries (a
// cut or stalled stream, a retryable error event, a 429 with retry-after, a 5xx that outlived
// the request retries) reported to the RetryObserver. Close must be called when done with it.
type Stream struct {
	conn  model.StreamConn
	c     *Client
	body  []byte
	names toolNames
	dec   *decoder // the current attempt's
}

// Stream sends the prompt and returns once the server accepted it. ctx governs the whole
// response.
func (c *Client) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (*Stream, error) {
	body, names, err := c.buildRequest(p)
	if err != nil {
		return nil, err
	}
	s := &Stream{c: c, body: body, names: names}
	if err := s.conn.Open(ctx, &c.streams, messagesWire{s}, body, obs); err != nil {
		return nil, err
	}
	return s, nil
}

// Body returns the request body (for logging and tests; it holds no credential).
func (s *Stream) Body() []byte { return s.body }

// Next returns the next event; after Completed it returns io.EOF. Errors are *model.Error or
// the context's error. Cancelling ctx interrupts a read waiting on the network.
func (s *Stream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	return s.conn.Next(ctx)
}

// Close ends the stream and releases its connection. It is safe to call more than once.
func (s *Stream) Close() error { return s.conn.Close() }

// streamConfig is the Messages wire's retry rules: the Responses client's, with its own status
// classification, and a Next context that counts only during its call. A ChatGPT Authorizer
// in the options is not used: the key goes in x-api-key.
func (c *Client) streamConfig() model.StreamConfig {
	cfg := model.NewStreamConfig(c.opts, c.url)
	cfg.Auth = nil
	cfg.ClassifyStatus = c.classifyStatus
	cfg.CutMessage = "stream closed before message_stop"
	cfg.NextContextPerCall = true
	return cfg
}

// messagesWire is what the Messages API adds to a model.StreamConn.
type messagesWire struct{ s *Stream }

func (w messagesWire) SetHeaders(req *http.Request) { w.s.c.setHeaders(req) }

// StartAttempt gives the attempt a fresh decoder; the answer's headers carry no events.
func (w messagesWire) StartAttempt(_ *http.Response, evs []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, error) {
	w.s.dec = newDecoder(w.s.names, w.s.c.name, w.s.c.classifyEvent)
	return evs, nil
}

func (w messagesWire) Decode(e sse.Event, out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	return w.s.dec.decode(e.Type, e.Data, out)
}

// BodyEnded: a Messages stream is complete only with message_stop.
func (messagesWire) BodyEnded(out []modelstream.ResponseEvent) ([]modelstream.ResponseEvent, bool, error) {
	return out, false, nil
}
