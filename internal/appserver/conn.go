package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// ClientInfo is initialize's clientInfo.
type ClientInfo struct {
	Name    string  `json:"name"`
	Title   *string `json:"title,omitempty"`
	Version string  `json:"version"`
}

// Capabilities is initialize's capabilities.
type Capabilities struct {
	ExperimentalAPI           bool     `json:"experimentalApi,omitempty"`
	OptOutNotificationMethods []string `json:"optOutNotificationMethods,omitempty"`
}

// Conn is one client connection and its state. Methods are safe for concurrent use.
type Conn struct {
	srv    *Server
	id     int64
	rpc    *jsonrpc.Conn
	framer jsonrpc.Framer
	log    *slog.Logger

	// dropSlow: a client too far behind a thread is hung up on (websocket) rather than
	// waited for (stdio, in-process); see subscriber.go.
	dropSlow bool

	ctx    context.Context // lives as long as the connection
	cancel context.CancelFunc
	bg     sync.WaitGroup

	mu          sync.Mutex
	initialized bool
	client      ClientInfo
	caps        Capabilities
	optOut      map[string]bool
	userAgent   string
	values      map[any]any
	onClose     []func()
	ended       bool // serve is waiting for the Go goroutines: no new ones
}

func newConn(s *Server, id int64) *Conn {
	return &Conn{srv: s, id: id, log: s.logger.With("conn", id), values: make(map[any]any)}
}

// ID numbers the connection within the process (from 1).
func (c *Conn) ID() int64 { return c.id }

// Server is the server the connection belongs to.
func (c *Conn) Server() *Server { return c.srv }

// Context lives as long as the connection; long-running work for the client watches it.
func (c *Conn) Context() context.Context { return c.ctx }

// Initialized reports whether initialize succeeded.
func (c *Conn) Initialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initialized
}

// ClientInfo is what the client said at initialize.
func (c *Conn) ClientInfo() ClientInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client
}

// Capabilities is what the client asked for at initialize.
func (c *Conn) Capabilities() Capabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// UserAgent is the user agent answered at initialize (also the one to send to the model).
func (c *Conn) UserAgent() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.userAgent
}

// Value returns per-connection state stored under key (nil when unset). Keys should be
// unexported types of the method family, as with context values.
func (c *Conn) Value(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.values[key]
}

// SetValue stores per-connection state.
func (c *Conn) SetValue(key, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.values[key] = v
}

// ValueOrInit returns the state stored under key, storing init() first when there is none,
// in one step so two requests of a connection share what the first one made.
func (c *Conn) ValueOrInit(key any, init func() any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[key]
	if !ok {
		v = init()
		c.values[key] = v
	}
	return v
}

// OnClose runs f when the connection ends (after Context is cancelled), in reverse order of
// registration.
func (c *Conn) OnClose(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onClose = append(c.onClose, f)
}

// Go runs f on a goroutine that lives at most as long as the connection: f must return once
// Context is done. ServeConn waits for it. Once the connection is winding down f is not run
// at all (other connections' threads reach every connection, at any time).
func (c *Conn) Go(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		f()
	}()
}

// experimentalNotifications go only to clients with the experimental API, as Codex 0.169
// sends them (observed: a turn's thread/readState/changed reaches only such a client).
var experimentalNotifications = map[string]bool{"thread/readState/changed": true}

// Notify sends a notification unless the client opted out of the method. It blocks while the
// connection's outgoing queue is full (backpressure) and fails once the connection ended.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	c.mu.Lock()
	skip := c.optOut[method] || (experimentalNotifications[method] && !c.caps.ExperimentalAPI)
	c.mu.Unlock()
	if skip {
		return nil
	}
	return c.rpc.Notify(ctx, method, params)
}

// Request sends a server→client request and waits for the answer. Ids count from 0 per
// connection. An error answer is a *jsonrpc.Error.
func (c *Conn) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.rpc.Call(ctx, method, params)
}

// PendingRequest is a server→client request sent and not yet answered.
type PendingRequest struct{ pc *jsonrpc.PendingCall }

// ID is the request's id: integers from 0 per connection, as serverRequest/resolved's
// requestId reports it.
func (p *PendingRequest) ID() int64 {
	n, _ := p.pc.ID().Raw().(int64)
	return n
}

// Wait returns the client's answer (a *jsonrpc.Error when it answered with an error).
func (p *PendingRequest) Wait(ctx context.Context) (json.RawMessage, error) { return p.pc.Wait(ctx) }

// StartRequest sends a server→client request without waiting, so the caller learns its id
// first. Concurrent requests do not wait for each other.
func (c *Conn) StartRequest(ctx context.Context, method string, params any) (*PendingRequest, error) {
	pc, err := c.rpc.Start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return &PendingRequest{pc: pc}, nil
}

// QueueLen is how many outgoing messages wait for the client.
func (c *Conn) QueueLen() int { return c.rpc.QueueLen() }

// Close hangs up on the client.
func (c *Conn) Close() error { return c.rpc.Close() }

// abort hangs up without a closing handshake where the transport has one (websocket): for
// a client that stopped reading.
func (c *Conn) abort() {
	if a, ok := c.framer.(interface{ Abort() error }); ok {
		_ = a.Abort()
	}
	_ = c.rpc.Close()
}

func (c *Conn) serve(ctx context.Context, f jsonrpc.Framer) error {
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.framer = f
	c.rpc = jsonrpc.NewConn(f, jsonrpc.ConnOptions{
		Handle:   c.handleRequest,
		Notified: c.handleNotification,
		Problem:  func(err error) { c.log.Warn("client protocol problem", "err", err) },
		// Codex logs a line that is no JSON-RPC message and answers nothing.
		SilentOnBadFrames: true,
		OutgoingQueue:     c.srv.opts.OutgoingQueue,
		MaxInFlight:       c.srv.opts.MaxInFlight,
		Now:               c.srv.opts.Now,
	})
	err := c.rpc.Run(c.ctx)
	c.cancel()
	c.mu.Lock()
	hooks := c.onClose
	c.onClose = nil
	c.mu.Unlock()
	for i := len(hooks) - 1; i >= 0; i-- {
		hooks[i]()
	}
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.bg.Wait()
	return err
}

// handleRequest runs on the read loop, in arrival order: initialize is answered inline so a
// client may pipeline requests right behind it; every other method runs on its own goroutine.
func (c *Conn) handleRequest(ctx context.Context, rpc *jsonrpc.Conn, req *jsonrpc.Request) {
	if req.Method == methodInitialize {
		res, err := c.initialize(req.Params)
		rpc.Reply(ctx, req.ID, res, err)
		if err == nil {
			for _, w := range c.srv.opts.StartupWarnings {
				c.Notify(c.ctx, "configWarning", w)
			}
			c.sendRemoteControlStatus()
		}
		return
	}
	h, ok := c.srv.handler(req.Method)
	if !ok {
		rpc.Reply(ctx, req.ID, nil, c.unhandledMethod(req.Method))
		return
	}
	if !c.Initialized() {
		rpc.Reply(ctx, req.ID, nil, beforeInitialize(h, req.Params))
		return
	}
	rpc.Go(func() {
		res, err := c.call(context.WithValue(ctx, requestIDKey{}, req.ID), h, req)
		rpc.Reply(ctx, req.ID, res, err)
	})
}

// call runs a handler, turning a panic into an internal error so one bad request cannot take
// the server down.
func (c *Conn) call(ctx context.Context, h Handler, req *jsonrpc.Request) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("handler panicked", "method", req.Method, "panic", p)
			res, err = nil, internalError(fmt.Sprintf("internal error in %s", req.Method))
		}
	}()
	return h.ServeRequest(ctx, c, req.Params)
}

// beforeInitialize answers a request that came before initialize as Codex 0.169 does: it
// decodes the params first, so params that do not fit get their decode error; the others
// "Not initialized".
func beforeInitialize(h Handler, params json.RawMessage) error {
	if th, ok := h.(TypedHandler); ok {
		if err := th.CheckParams(params); err != nil {
			return err
		}
	}
	return errNotInitialized()
}

func (c *Conn) handleNotification(ctx context.Context, _ *jsonrpc.Conn, n *jsonrpc.Notification) {
	if n.Method == methodInitialized {
		return
	}
	h, ok := c.srv.notificationHandler(n.Method)
	if !ok {
		c.log.Debug("ignored client notification", "method", n.Method)
		return
	}
	h(ctx, c, n.Params)
}

type requestIDKey struct{}

// requestIDOf is the id of the request ctx serves (invalid outside a request).
func requestIDOf(ctx context.Context) jsonrpc.ID {
	id, _ := ctx.Value(requestIDKey{}).(jsonrpc.ID)
	return id
}
