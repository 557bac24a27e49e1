package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// CancelMethod is the notification a peer sends to cancel one of its requests.
const CancelMethod = "$/cancelRequest"

// ConnOptions configure a Conn. Handle is required.
type ConnOptions struct {
	// Handle is called for every incoming request, in arrival order, on the read goroutine.
	// It must not block for long: it answers with Conn.Reply at once, or starts the work with
	// Conn.Go and replies from there. ctx ends when the request is cancelled
	// ($/cancelRequest), answered, or the connection ends.
	Handle func(ctx context.Context, c *Conn, req *Request)
	// Notified is called for every incoming notification except $/cancelRequest, in order,
	// on the read goroutine. Nil ignores them.
	Notified func(ctx context.Context, c *Conn, n *Notification)
	// Problem reports what the peer got wrong without a request to answer (a response to an
	// id we never used, an unparseable frame without id). Nil ignores them.
	Problem func(err error)
	// OutgoingQueue is how many encoded frames may wait for the transport (default 1024).
	// When it is full, Notify and Call block (backpressure) and the read loop stops reading
	// once it has an answer to write.
	OutgoingQueue int
	// OutgoingBytes bounds the bytes of the frames waiting for the transport, the one being
	// written included (default DefaultOutgoingBytes): a frame that does not fit waits like
	// one over OutgoingQueue. A frame larger than the bound goes out alone, once the queue
	// is empty. A client that stops reading thus costs at most this much here, however
	// large the messages.
	OutgoingBytes int
	// Now stamps outgoing notifications with emittedAtMs, as Codex's app-server does; nil
	// leaves them unstamped.
	Now func() time.Time
	// MaxInFlight caps incoming requests not yet answered (default 256); the one over the
	// cap is answered at once with -32001 "Server overloaded; retry later.".
	MaxInFlight int
	// SilentOnBadFrames reports frames that are no JSON-RPC message through Problem without
	// answering them, as Codex's app-server does (it logs such lines and stays silent). The
	// default answers with a -32700/-32600 error as JSON-RPC 2.0 prescribes.
	SilentOnBadFrames bool
}

// Conn is one JSON-RPC peer relationship over a Framer: requests both ways, notifications,
// responses matched by id, cancellation. Run owns the goroutines; everything else is safe for
// concurrent use.
type Conn struct {
	f    Framer
	opts ConnOptions

	out     chan []byte
	done    chan struct{} // closed when the connection ends: senders give up
	doneErr error
	endOnce sync.Once

	// sendTurn (cap 1) lets one sender at a time wait for room and queue its frame, so frames
	// leave in the order their senders got the turn.
	sendTurn chan struct{}
	// queuedBytes counts the frames queued or being written (under mu); room (cap 1) is
	// signalled when the writer finished one.
	queuedBytes int
	room        chan struct{}

	mu       sync.Mutex
	nextID   int64
	peerGone bool // the peer's input ended: nobody will answer a new call
	pending  map[ID]chan *Response
	inflight map[ID]inflightRequest

	// replyGate holds a new request back while an answer and what AfterReply registered
	// for it are being queued, so that nothing the client's next request causes comes
	// between them.
	replyGate sync.RWMutex

	work sync.WaitGroup // goroutines started by Go
}

// NewConn prepares a connection; nothing happens until Run.
func NewConn(f Framer, opts ConnOptions) *Conn {
	if opts.OutgoingQueue <= 0 {
		opts.OutgoingQueue = 1024
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 256
	}
	if opts.OutgoingBytes <= 0 {
		opts.OutgoingBytes = DefaultOutgoingBytes
	}
	return &Conn{
		f:        f,
		opts:     opts,
		out:      make(chan []byte, opts.OutgoingQueue),
		done:     make(chan struct{}),
		sendTurn: make(chan struct{}, 1),
		room:     make(chan struct{}, 1),
		pending:  make(map[ID]chan *Response),
		inflight: make(map[ID]inflightRequest),
	}
}

// Run serves the connection until the peer hangs up, the transport fails or ctx ends. At the
// peer's end of input it waits for the requests already started to be answered (they may
// still need ctx to finish), flushes what is queued, and returns nil.
func (c *Conn) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A framer's read may not watch ctx (a pipe); closing the framer unblocks it.
	stopClose := context.AfterFunc(ctx, func() { c.f.Close() })
	defer stopClose()
	writerDone := make(chan error, 1)
	stopWriter := make(chan struct{})
	go func() { writerDone <- c.writeLoop(ctx, stopWriter) }()

	readErr := c.readLoop(ctx)

	// The peer can no longer answer our requests.
	c.failPending()
	var werr error
	if errors.Is(readErr, io.EOF) {
		// The peer finished sending: answers to what it sent still go out, then the queue
		// is flushed.
		readErr = nil
		c.work.Wait()
		close(stopWriter)
		werr = <-writerDone
		c.end(ErrClosed)
	} else {
		c.end(ErrClosed)
		cancel()
		c.work.Wait()
		<-writerDone
	}
	c.f.Close()
	if readErr == nil && werr != nil {
		return werr
	}
	return readErr
}

// Close ends the connection: pending calls fail, the transport is closed.
func (c *Conn) Close() error {
	c.end(ErrClosed)
	return c.f.Close()
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) end(err error) {
	c.endOnce.Do(func() {
		c.doneErr = err
		close(c.done)
	})
}

// Go runs f on a goroutine owned by the connection: Run does not return before f does. Use it
// for request handlers; they should watch their ctx.
func (c *Conn) Go(f func()) {
	c.work.Add(1)
	go func() {
		defer c.work.Done()
		f()
	}()
}

func (c *Conn) readLoop(ctx context.Context) error {
	for {
		frame, err := c.f.ReadFrame(ctx)
		if err != nil {
			var tl *FrameTooLargeError
			if errors.As(err, &tl) {
				// Answered even with SilentOnBadFrames: the frame was a request the client
				// waits for, and it was skipped, not misread.
				id := RecoverID(tl.Prefix)
				e := &Error{Code: CodeInvalidRequest, Message: "Invalid request: " + tl.Error()}
				c.problem(fmt.Errorf("bad message: %s", e.Message))
				c.send(ctx, &Response{ID: id, Error: e})
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			select {
			case <-c.done:
				return c.doneErr
			default:
			}
			return err
		}
		msg, err := Decode(frame)
		if err != nil {
			var de *DecodeError
			if errors.As(err, &de) {
				c.answerBroken(ctx, de.ID, &Error{Code: de.Code, Message: de.Message})
				continue
			}
			return err
		}
		switch m := msg.(type) {
		case *Request:
			// Wait out an answer being queued with what must follow it (AfterReply).
			c.replyGate.RLock()
			c.replyGate.RUnlock()
			c.dispatch(ctx, m)
		case *Notification:
			if m.Method == CancelMethod {
				c.cancelIncoming(m.Params)
				continue
			}
			if c.opts.Notified != nil {
				c.opts.Notified(ctx, c, m)
			}
		case *Response:
			c.deliver(m)
		}
	}
}

// answerBroken answers a frame that is no valid message. When no id can be recovered the
// answer carries "id": null, as JSON-RPC 2.0 prescribes (Codex only logs such lines; its
// schema has no null id, so schematest admits exactly this case).
func (c *Conn) answerBroken(ctx context.Context, id ID, e *Error) {
	c.problem(fmt.Errorf("bad message: %s", e.Message))
	if c.opts.SilentOnBadFrames {
		return
	}
	c.send(ctx, &Response{ID: id, Error: e})
}

func (c *Conn) problem(err error) {
	if c.opts.Problem != nil {
		c.opts.Problem(err)
	}
}

func (c *Conn) dispatch(ctx context.Context, req *Request) {
	c.mu.Lock()
	if _, dup := c.inflight[req.ID]; dup {
		c.mu.Unlock()
		c.send(ctx, &Response{ID: req.ID, Error: Errorf(CodeInvalidRequest, "Invalid request: duplicate request id %s", req.ID)})
		return
	}
	if len(c.inflight) >= c.opts.MaxInFlight {
		c.mu.Unlock()
		c.send(ctx, &Response{ID: req.ID, Error: Overloaded()})
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	after := &afterReply{}
	rctx = context.WithValue(rctx, afterReplyKey{}, after)
	// Ending the request's ctx without an answer (the connection closed) still runs what
	// AfterReply registered, as context.AfterFunc would.
	stop := context.AfterFunc(rctx, after.run)
	c.inflight[req.ID] = inflightRequest{cancel: cancel, after: after, stopAfter: stop}
	c.mu.Unlock()
	c.opts.Handle(rctx, c, req)
}

// inflightRequest is a request being served: its ctx's cancel and what runs after its
// answer.
type inflightRequest struct {
	cancel    context.CancelFunc
	after     *afterReply
	stopAfter func() bool
}

func (c *Conn) cancelIncoming(params json.RawMessage) {
	var p struct {
		ID ID `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || !p.ID.IsValid() {
		c.problem(fmt.Errorf("%s without a valid id", CancelMethod))
		return
	}
	c.mu.Lock()
	in, ok := c.inflight[p.ID]
	c.mu.Unlock()
	if ok {
		in.cancel()
	}
}

// Reply answers the incoming request id with result (marshalled) or err (see AsError). A
// second reply to the same id is an error and sends nothing.
func (c *Conn) Reply(ctx context.Context, id ID, result any, err error) error {
	c.mu.Lock()
	in, ok := c.inflight[id]
	delete(c.inflight, id)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("jsonrpc: reply to %s: no such request in flight", id)
	}
	defer in.cancel()
	resp := &Response{ID: id}
	if err != nil {
		resp.Error = AsError(err)
	} else {
		raw, merr := Marshal(result)
		if merr != nil {
			resp.Error = &Error{Code: CodeInternalError, Message: "encode result: " + merr.Error()}
		} else {
			resp.Result = raw
		}
	}
	in.stopAfter()
	if in.after.pending() {
		c.replyGate.Lock()
		defer c.replyGate.Unlock()
	}
	// The request's own ctx may be cancelled already; the answer must still go out.
	err = c.send(context.WithoutCancel(ctx), resp)
	in.after.run()
	return err
}

// ParamsAppender is params that append their own JSON to the frame: Notify writes them
// straight into it, so params of megabytes are encoded once, not encoded and then copied.
type ParamsAppender interface {
	AppendParams(dst []byte) ([]byte, error)
}

// Notify sends a notification. It blocks while the outgoing queue is full.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	var emittedAt int64
	if c.opts.Now != nil {
		emittedAt = c.opts.Now().UnixMilli()
	}
	if pa, ok := params.(ParamsAppender); ok {
		frame, err := encodeNotificationWith(method, pa, emittedAt)
		if err != nil {
			return err
		}
		return c.sendFrame(ctx, frame)
	}
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	return c.send(ctx, &Notification{Method: method, Params: raw, EmittedAtMs: emittedAt})
}

// Call sends a request and waits for its response. Ids are integers counting from 0 per
// connection. A JSON-RPC error answer is returned as *Error; ctx ending or the connection
// ending returns at once (a late answer is then dropped).
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	pc, err := c.Start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return pc.Wait(ctx)
}

// PendingCall is a request sent and not yet answered.
type PendingCall struct {
	c  *Conn
	id ID
	ch chan *Response
}

// ID is the request's id (an integer).
func (p *PendingCall) ID() ID { return p.id }

// Start sends a request without waiting, so the caller knows its id before the answer (e.g.
// to announce serverRequest/resolved later). Wait must be called to release it.
func (c *Conn) Start(ctx context.Context, method string, params any) (*PendingCall, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *Response, 1)
	c.mu.Lock()
	if c.peerGone {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	id := Int64ID(c.nextID)
	c.nextID++
	c.pending[id] = ch
	c.mu.Unlock()
	pc := &PendingCall{c: c, id: id, ch: ch}
	if err := c.send(ctx, &Request{ID: id, Method: method, Params: raw}); err != nil {
		pc.forget()
		return nil, err
	}
	return pc, nil
}

func (p *PendingCall) forget() {
	p.c.mu.Lock()
	delete(p.c.pending, p.id)
	p.c.mu.Unlock()
}

// Wait returns the answer: the result, or the peer's *Error, or ctx's error, or ErrClosed.
func (p *PendingCall) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case resp := <-p.ch:
		if resp == nil {
			return nil, ErrClosed
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		p.forget()
		return nil, ctx.Err()
	case <-p.c.done:
		p.forget()
		return nil, ErrClosed
	}
}

func (c *Conn) deliver(resp *Response) {
	c.mu.Lock()
	ch, ok := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	c.mu.Unlock()
	if !ok {
		c.problem(fmt.Errorf("response to unknown request id %s", resp.ID))
		return
	}
	ch <- resp
}

func (c *Conn) failPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.peerGone = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// DefaultOutgoingBytes is the default ConnOptions.OutgoingBytes.
const DefaultOutgoingBytes = 1 << 20

func (c *Conn) send(ctx context.Context, m Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	return c.sendFrame(ctx, b)
}

// sendFrame queues an encoded frame (see ConnOptions.OutgoingQueue and OutgoingBytes).
func (c *Conn) sendFrame(ctx context.Context, b []byte) error {
	select {
	case <-c.done:
		return ErrClosed
	default:
	}
	select {
	case c.sendTurn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		return ErrClosed
	}
	defer func() { <-c.sendTurn }()
	for !c.reserve(len(b)) {
		select {
		case <-c.room:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			return ErrClosed
		}
	}
	select {
	case c.out <- b:
		return nil
	case <-ctx.Done():
		c.release(len(b))
		return ctx.Err()
	case <-c.done:
		c.release(len(b))
		return ErrClosed
	}
}

// reserve counts n more bytes queued if they fit (or the queue is empty).
func (c *Conn) reserve(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.queuedBytes > 0 && c.queuedBytes+n > c.opts.OutgoingBytes {
		return false
	}
	c.queuedBytes += n
	return true
}

// release uncounts n bytes (a frame written, or never queued) and wakes a waiting sender.
func (c *Conn) release(n int) {
	c.mu.Lock()
	c.queuedBytes -= n
	c.mu.Unlock()
	select {
	case c.room <- struct{}{}:
	default:
	}
}

// QueueLen is how many frames wait for the transport (for tests and metrics).
func (c *Conn) QueueLen() int { return len(c.out) }

func (c *Conn) writeLoop(ctx context.Context, stop <-chan struct{}) error {
	flusher, _ := c.f.(Flusher)
	write := func(b []byte) error {
		defer c.release(len(b))
		if err := c.f.WriteFrame(ctx, b); err != nil {
			return err
		}
		if flusher != nil && len(c.out) == 0 { // the burst is over: hand it to the transport
			return flusher.Flush()
		}
		return nil
	}
	for {
		select {
		case b := <-c.out:
			if err := write(b); err != nil {
				c.end(fmt.Errorf("write: %w", err))
				c.f.Close() // unblocks the reader
				return err
			}
		case <-stop:
			for { // flush what is queued
				select {
				case b := <-c.out:
					if err := write(b); err != nil {
						return err
					}
				default:
					if flusher != nil {
						return flusher.Flush()
					}
					return nil
				}
			}
		case <-c.done:
			return nil
		}
	}
}

// Marshal encodes v like serde_json does: no HTML escaping, no trailing newline.
func Marshal(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return Marshal(params)
}
