package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Tap sees every frame of a client connection; schematest.Session implements it, so tests
// validate all traffic by wrapping their client with it.
type Tap interface {
	ClientSent(frame []byte)
	ServerSent(frame []byte) error
}

// ClientOptions configure a Client.
type ClientOptions struct {
	// HandleRequest answers server→client requests (approvals); nil answers -32601.
	HandleRequest func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// Tap, when set, sees every frame both ways; a frame it rejects ends the connection.
	Tap Tap
	// Notifications is the buffer of the notification channel (default 1024). A client that
	// does not drain it stops reading, and the server feels the backpressure.
	Notifications int
}

// Client is a Go client of the app-server protocol: in-process (Connect) or over any
// framer (NewClient). It is the in-process face for Go programs and the tests' client.
type Client struct {
	rpc   *jsonrpc.Conn
	notes chan *jsonrpc.Notification
	done  chan struct{}
	err   error
	extra chan struct{} // the in-process server side, for Connect
}

// Connect serves a new in-process connection of srv and returns its client. The connection
// ends when ctx ends or the client is closed.
func Connect(ctx context.Context, srv *Server, opts ClientOptions) *Client {
	a, b := jsonrpc.Pipe()
	served := make(chan struct{})
	go func() { // owned by the client: Close waits for it
		defer close(served)
		srv.ServeConn(ctx, b)
	}()
	c := NewClient(ctx, a, opts)
	c.extra = served
	return c
}

// NewClient runs the client side of a connection over f until ctx ends or Close.
func NewClient(ctx context.Context, f jsonrpc.Framer, opts ClientOptions) *Client {
	if opts.Notifications <= 0 {
		opts.Notifications = 1024
	}
	if opts.Tap != nil {
		f = &tapFramer{Framer: f, tap: opts.Tap}
	}
	c := &Client{notes: make(chan *jsonrpc.Notification, opts.Notifications), done: make(chan struct{})}
	c.rpc = jsonrpc.NewConn(f, jsonrpc.ConnOptions{
		Handle: func(ctx context.Context, rpc *jsonrpc.Conn, req *jsonrpc.Request) {
			rpc.Go(func() {
				if opts.HandleRequest == nil {
					rpc.Reply(ctx, req.ID, nil, jsonrpc.MethodNotFound(req.Method))
					return
				}
				res, err := opts.HandleRequest(ctx, req.Method, req.Params)
				rpc.Reply(ctx, req.ID, res, err)
			})
		},
		Notified: func(ctx context.Context, _ *jsonrpc.Conn, n *jsonrpc.Notification) {
			select {
			case c.notes <- n:
			case <-ctx.Done():
			case <-c.rpc.Done(): // closed while the reader of Notifications is away
			}
		},
	})
	go func() { // owned by the client: Close waits for it
		c.err = c.rpc.Run(ctx)
		close(c.notes)
		close(c.done)
	}()
	return c
}

// Call sends a request and decodes its result into result (unless nil). A JSON-RPC error
// answer is a *jsonrpc.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.rpc.Call(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("decode %s result: %w", method, err)
	}
	return nil
}

// Notify sends a client notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.rpc.Notify(ctx, method, params)
}

// Notifications delivers the server's notifications in order; it is closed when the
// connection ends.
func (c *Client) Notifications() <-chan *jsonrpc.Notification { return c.notes }

// Initialize performs the handshake: initialize, then the initialized notification.
func (c *Client) Initialize(ctx context.Context, p InitializeParams) (InitializeResponse, error) {
	var res InitializeResponse
	if err := c.Call(ctx, methodInitialize, p, &res); err != nil {
		return res, err
	}
	return res, c.Notify(ctx, methodInitialized, nil)
}

// Close hangs up and waits for the connection's goroutines.
func (c *Client) Close() error {
	c.rpc.Close()
	<-c.done
	if c.extra != nil {
		<-c.extra
	}
	if c.err != nil && !errors.Is(c.err, context.Canceled) && !errors.Is(c.err, jsonrpc.ErrClosed) {
		return c.err
	}
	return nil
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

type tapFramer struct {
	jsonrpc.Framer
	tap Tap
}

func (t *tapFramer) ReadFrame(ctx context.Context) ([]byte, error) {
	b, err := t.Framer.ReadFrame(ctx)
	if err == nil {
		if terr := t.tap.ServerSent(b); terr != nil {
			return nil, terr
		}
	}
	return b, err
}

func (t *tapFramer) WriteFrame(ctx context.Context, frame []byte) error {
	t.tap.ClientSent(frame)
	return t.Framer.WriteFrame(ctx, frame)
}

// Flush passes a buffered framer's flush through the tap.
func (t *tapFramer) Flush() error {
	if f, ok := t.Framer.(jsonrpc.Flusher); ok {
		return f.Flush()
	}
	return nil
}
