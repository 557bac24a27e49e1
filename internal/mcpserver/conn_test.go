package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeConn is the client's side of a connection: what the server writes, and what it
// will read next.
type fakeConn struct {
	incoming chan jsonrpc.Message
	written  chan jsonrpc.Message
	closed   chan struct{}
}

func newFakeConn() *fakeConn {
	return &fakeConn{incoming: make(chan jsonrpc.Message, 8), written: make(chan jsonrpc.Message, 8), closed: make(chan struct{})}
}

func (f *fakeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-f.incoming:
		return m, nil
	case <-f.closed:
		return nil, errors.New("closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	f.written <- m
	return nil
}

func (f *fakeConn) Close() error      { close(f.closed); return nil }
func (f *fakeConn) SessionID() string { return "" }

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestRawConnNumbersRequestsAndRoutesAnswers(t *testing.T) {
	fake := newFakeConn()
	var rc *rawConn
	conn, err := (&rawTransport{inner: fakeTransport{fake}, connected: func(c *rawConn) { rc = c }}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// Our elicitation takes wire id 0, as Codex's first request does.
	answered := make(chan json.RawMessage, 1)
	go func() {
		res, err := rc.call(context.Background(), methodElicit, json.RawMessage(`{"message":"m"}`))
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	sent := (<-fake.written).(*jsonrpc.Request)
	if n, _ := wireNumber(sent.ID); n != 0 || sent.Method != methodElicit {
		t.Fatalf("sent %v %s", sent.ID.Raw(), sent.Method)
	}

	// An SDK request (say a ping with its own id 57) takes the next wire id, 1.
	if err := conn.Write(t.Context(), &jsonrpc.Request{ID: mustID(t, float64(57)), Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	ping := (<-fake.written).(*jsonrpc.Request)
	if n, _ := wireNumber(ping.ID); n != 1 {
		t.Fatalf("SDK request went out as id %v, want 1", ping.ID.Raw())
	}

	// The answers come back in the other order: the SDK gets its id back; ours is taken.
	fake.incoming <- &jsonrpc.Response{ID: mustID(t, float64(1)), Result: json.RawMessage(`{}`)}
	fake.incoming <- &jsonrpc.Response{ID: mustID(t, float64(0)), Result: json.RawMessage(`{"decision":"approved"}`)}
	fake.incoming <- &jsonrpc.Request{ID: mustID(t, "call-9"), Method: "tools/call", Params: json.RawMessage(`{"name":"codex"}`)}

	msg, err := conn.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID.Raw() != int64(57) {
		t.Fatalf("SDK read %#v, want its answer under id 57", msg)
	}
	msg, err = conn.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" {
		t.Fatalf("SDK read %#v, want the tools/call (our answer is not its business)", msg)
	}
	if got := string(<-answered); got != `{"decision":"approved"}` {
		t.Errorf("our answer = %s", got)
	}
	raw, text := requestID(&mcp.CallToolRequest{Extra: req.Extra.(*mcp.RequestExtra)})
	if diff := cmp.Diff([]string{`"call-9"`, "call-9"}, []string{string(raw), text}); diff != "" {
		t.Errorf("request id (-want +got):\n%s", diff)
	}
}

func TestRawConnCallEndsWithTheConnection(t *testing.T) {
	fake := newFakeConn()
	var rc *rawConn
	conn, err := (&rawTransport{inner: fakeTransport{fake}, connected: func(c *rawConn) { rc = c }}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := rc.call(context.Background(), methodElicit, json.RawMessage(`{}`))
		done <- err
	}()
	<-fake.written
	conn.Close()
	if err := <-done; !errors.Is(err, errConnClosed) {
		t.Errorf("call after close: %v", err)
	}
}

type fakeTransport struct{ c *fakeConn }

func (f fakeTransport) Connect(context.Context) (mcp.Connection, error) { return f.c, nil }
