package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk server speaks standard MCP, but Codex's mcp-server goes beyond it in two
// ways the SDK has no API for: it sends `codex/event` notifications, and its elicitation
// requests carry extra top-level fields (codex_*) and accept a `decision` in the answer.
// rawConn sits between the SDK and the real connection to add exactly those: it writes our
// own messages next to the SDK's, routes answers to our requests back to us, and tells
// tool handlers the JSON-RPC id of their tools/call (Codex echoes it in every event).
//
// Server-to-client requests are numbered on the wire from 0, as Codex numbers them (some
// clients decode the id as an integer); the SDK's own requests, if it sends any, are
// renumbered into the same sequence and their answers mapped back.

// requestIDHeader carries the raw JSON of a tools/call request id to the tool handler, in
// the request's RequestExtra (which never reaches the wire).
const requestIDHeader = "X-Gocodex-Mcp-Request-Id"

// errConnClosed answers requests still waiting when the connection goes away.
var errConnClosed = errors.New("mcp connection closed")

type rawTransport struct {
	inner mcp.Transport
	// connected receives the wrapped connection once, when the SDK connects.
	connected func(*rawConn)
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rc := &rawConn{
		inner:   c,
		pending: make(map[int64]chan reply),
		sdkIDs:  make(map[int64]jsonrpc.ID),
		closed:  make(chan struct{}),
	}
	t.connected(rc)
	return rc, nil
}

// reply is the answer to one of our requests.
type reply struct {
	result json.RawMessage
	err    error
}

type rawConn struct {
	inner mcp.Connection

	mu      sync.Mutex
	nextID  int64                // the next wire id of a server-to-client request
	pending map[int64]chan reply // our requests awaiting an answer
	sdkIDs  map[int64]jsonrpc.ID // the SDK's requests: wire id -> the SDK's id

	closeOnce sync.Once
	closed    chan struct{}
}

// Read hands the SDK every message except the answers to our own requests.
func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.inner.Read(ctx)
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if c.deliver(m) {
				continue
			}
		case *jsonrpc.Request:
			if m.Method == "tools/call" && m.ID.IsValid() && m.Extra == nil {
				if raw, err := json.Marshal(m.ID.Raw()); err == nil {
					m.Extra = &mcp.RequestExtra{Header: http.Header{requestIDHeader: {string(raw)}}}
				}
			}
		}
		return msg, nil
	}
}

// deliver passes an answer to our request waiting for it (true), or gives an answer to
// one of the SDK's requests its original id back (false: the SDK takes it).
func (c *rawConn) deliver(r *jsonrpc.Response) bool {
	n, ok := wireNumber(r.ID)
	if !ok {
		return false
	}
	c.mu.Lock()
	ch, ours := c.pending[n]
	delete(c.pending, n)
	orig, theirs := c.sdkIDs[n]
	delete(c.sdkIDs, n)
	c.mu.Unlock()
	switch {
	case ours:
		ch <- reply{result: r.Result, err: r.Error}
		return true
	case theirs:
		r.ID = orig
	}
	return false
}

// wireNumber reads an integer request id.
func wireNumber(id jsonrpc.ID) (int64, bool) {
	switch v := id.Raw().(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), v == float64(int64(v))
	}
	return 0, false
}

// Write writes the SDK's messages: results without HTML escaping, requests renumbered.
func (c *rawConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if len(m.Result) > 0 {
			m.Result = unescapeHTML(m.Result)
		}
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			n, id, err := c.allocate()
			if err != nil {
				return err
			}
			c.mu.Lock()
			c.sdkIDs[n] = m.ID
			c.mu.Unlock()
			renumbered := *m
			renumbered.ID = id
			if err := c.inner.Write(ctx, &renumbered); err != nil {
				c.mu.Lock()
				delete(c.sdkIDs, n)
				c.mu.Unlock()
				return err
			}
			return nil
		}
	}
	return c.inner.Write(ctx, msg)
}

// allocate takes the next wire id.
func (c *rawConn) allocate() (int64, jsonrpc.ID, error) {
	c.mu.Lock()
	n := c.nextID
	c.nextID++
	c.mu.Unlock()
	id, err := jsonrpc.MakeID(float64(n))
	return n, id, err
}

func (c *rawConn) Close() error {
	err := c.inner.Close()
	c.closeOnce.Do(func() { close(c.closed) })
	return err
}

func (c *rawConn) SessionID() string { return c.inner.SessionID() }

// notify sends a notification whose params are already encoded.
func (c *rawConn) notify(ctx context.Context, method string, params json.RawMessage) error {
	return c.inner.Write(ctx, &jsonrpc.Request{Method: method, Params: params})
}

// call sends a request and waits for its answer, the end of ctx, or the connection's end.
func (c *rawConn) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	n, id, err := c.allocate()
	if err != nil {
		return nil, err
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	c.pending[n] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, n)
		c.mu.Unlock()
	}
	if err := c.inner.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		forget()
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-c.closed:
		forget()
		return nil, errConnClosed
	}
}

// requestID is the JSON-RPC id of the tools/call being handled: its raw JSON (to echo it
// with its type) and its text (Codex's codex_mcp_tool_call_id and submission id).
func requestID(req *mcp.CallToolRequest) (raw json.RawMessage, text string) {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return json.RawMessage("null"), ""
	}
	v := req.Extra.Header.Get(requestIDHeader)
	if v == "" {
		return json.RawMessage("null"), ""
	}
	var s string
	if json.Unmarshal([]byte(v), &s) == nil {
		return json.RawMessage(v), s
	}
	return json.RawMessage(v), v
}
