package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// peer is the far side of a connection under test, speaking raw lines.
type peer struct {
	t    *testing.T
	in   *io.PipeWriter // what the conn reads
	out  *LineFramer    // what the conn wrote
	outR *io.PipeReader
}

// startConn runs a Conn over pipes and returns the raw peer. The conn stops at test end.
func startConn(t *testing.T, opts ConnOptions) (*Conn, *peer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := NewLineFramer(inR, outW, inR, 1<<10)
	c := NewConn(f, opts)
	done := make(chan error, 1)
	go func() {
		done <- c.Run(context.Background())
		outW.Close()
	}()
	p := &peer{t: t, in: inW, out: NewLineFramer(outR, io.Discard, outR, 1<<20), outR: outR}
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // let a final flush finish
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		outR.Close()
	})
	return c, p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

func (p *peer) recv() string {
	p.t.Helper()
	b, err := p.out.ReadFrame(context.Background())
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	return string(b)
}

// echo answers every request with its params, and "fail" with an internal error.
func echo(ctx context.Context, c *Conn, req *Request) {
	if req.Method == "fail" {
		c.Reply(ctx, req.ID, nil, errors.New("boom"))
		return
	}
	if req.Method == "missing" {
		c.Reply(ctx, req.ID, nil, MethodNotFound(req.Method))
		return
	}
	c.Reply(ctx, req.ID, req.Params, nil)
}

func TestConnAnswersAndKeepsServing(t *testing.T) {
	var mu sync.Mutex
	var problems []string
	_, p := startConn(t, ConnOptions{Handle: echo, Problem: func(err error) {
		mu.Lock()
		problems = append(problems, err.Error())
		mu.Unlock()
	}})
	steps := []struct{ send, want string }{
		{`{"id":1,"method":"echo","params":{"x":1}}`, `{"id":1,"result":{"x":1}}`},
		{`garbage{`, `{"error":{"code":-32700,"message":"Parse error: invalid character 'g' looking for beginning of value"},"id":null}`},
		{`{"id":"s","method":"missing","params":{}}`, `{"error":{"code":-32601,"message":"Method not found: missing"},"id":"s"}`},
		{`{"id":2,"method":"fail"}`, `{"error":{"code":-32603,"message":"boom"},"id":2}`},
		{`{"id":3,"method":"x","params":` + strings.Repeat(`"a"`, 600) + `}`, `{"error":{"code":-32600,"message":"Invalid request: message of 1831 bytes exceeds the limit of 1024 bytes"},"id":3}`},
		{`{"id":99,"result":{}}`, ``}, // a response to nothing: reported, not answered
		{`{"id":4,"method":"echo","params":[1]}`, `{"id":4,"result":[1]}`},
	}
	for _, s := range steps {
		p.send(s.send)
		if s.want != "" {
			if got := p.recv(); got != s.want {
				t.Errorf("after %.40s: got %s, want %s", s.send, got, s.want)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"bad message: Parse error: invalid character 'g' looking for beginning of value",
		"bad message: Invalid request: message of 1831 bytes exceeds the limit of 1024 bytes",
		"response to unknown request id 99"}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestCallIDsCountFromZero(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo})
	type res struct {
		raw json.RawMessage
		err error
	}
	results := make(chan res, 2)
	go func() {
		r, err := c.Call(context.Background(), "item/fileChange/requestApproval", map[string]string{"a": "b"})
		results <- res{r, err}
	}()
	if got, want := p.recv(), `{"method":"item/fileChange/requestApproval","id":0,"params":{"a":"b"}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	p.send(`{"id":0,"result":{"decision":"accept"}}`)
	if r := <-results; r.err != nil || string(r.raw) != `{"decision":"accept"}` {
		t.Fatalf("Call = %s, %v", r.raw, r.err)
	}
	go func() {
		r, err := c.Call(context.Background(), "m", nil)
		results <- res{r, err}
	}()
	if got, want := p.recv(), `{"method":"m","id":1}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	p.send(`{"error":{"code":-32000,"message":"nope"},"id":1}`)
	r := <-results
	var e *Error
	if !errors.As(r.err, &e) || e.Code != -32000 || e.Message != "nope" {
		t.Fatalf("Call error = %v, want the peer's error", r.err)
	}
}

func TestCallContextCancel(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "m", nil)
		errc <- err
	}()
	p.recv()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call after cancel = %v", err)
	}
	// The late answer is a response to nothing, and the connection goes on.
	p.send(`{"id":0,"result":{}}`)
	p.send(`{"id":5,"method":"echo","params":1}`)
	if got := p.recv(); got != `{"id":5,"result":1}` {
		t.Fatalf("got %s", got)
	}
}

func TestCallFailsWhenPeerHangsUp(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "m", nil)
		errc <- err
	}()
	p.recv()
	p.in.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after hang-up = %v, want ErrClosed", err)
	}
}

func TestCancelRequest(t *testing.T) {
	started := make(chan struct{})
	_, p := startConn(t, ConnOptions{Handle: func(ctx context.Context, c *Conn, req *Request) {
		c.Go(func() {
			close(started)
			<-ctx.Done() // a long job that watches its context
			c.Reply(ctx, req.ID, nil, Errorf(-32800, "Request cancelled"))
		})
	}})
	p.send(`{"id":"long","method":"wait"}`)
	<-started
	p.send(`{"method":"$/cancelRequest","params":{"id":"long"}}`)
	if got, want := p.recv(), `{"error":{"code":-32800,"message":"Request cancelled"},"id":"long"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestOverloaded(t *testing.T) {
	release := make(chan struct{})
	_, p := startConn(t, ConnOptions{MaxInFlight: 2, Handle: func(ctx context.Context, c *Conn, req *Request) {
		c.Go(func() {
			<-release
			c.Reply(ctx, req.ID, "done", nil)
		})
	}})
	p.send(`{"id":1,"method":"a"}`)
	p.send(`{"id":2,"method":"a"}`)
	p.send(`{"id":3,"method":"a"}`)
	if got, want := p.recv(), `{"error":{"code":-32001,"message":"Server overloaded; retry later."},"id":3}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	close(release)
	got := []string{p.recv(), p.recv()}
	if got[0] > got[1] {
		got[0], got[1] = got[1], got[0]
	}
	if diff := cmp.Diff([]string{`{"id":1,"result":"done"}`, `{"id":2,"result":"done"}`}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestDuplicateRequestID(t *testing.T) {
	release := make(chan struct{})
	_, p := startConn(t, ConnOptions{Handle: func(ctx context.Context, c *Conn, req *Request) {
		c.Go(func() {
			<-release
			c.Reply(ctx, req.ID, "ok", nil)
		})
	}})
	p.send(`{"id":1,"method":"a"}`)
	p.send(`{"id":1,"method":"a"}`)
	if got, want := p.recv(), `{"error":{"code":-32600,"message":"Invalid request: duplicate request id 1"},"id":1}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	close(release)
	p.recv()
}

// blockingFramer never finishes a write until released: a client that stopped reading.
type blockingFramer struct {
	in      *io.PipeReader
	release chan struct{}
	mu      sync.Mutex
	written int
}

func (f *blockingFramer) ReadFrame(ctx context.Context) ([]byte, error) {
	return NewLineFramer(f.in, nil, nil, 0).ReadFrame(ctx)
}

func (f *blockingFramer) WriteFrame(ctx context.Context, b []byte) error {
	select {
	case <-f.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	f.mu.Lock()
	f.written++
	f.mu.Unlock()
	return nil
}

func (f *blockingFramer) Close() error { return f.in.Close() }

// A peer that stops reading makes Notify block once the queue is full, instead of the queue
// growing: the sender feels the backpressure.
func TestNotifyBackpressure(t *testing.T) {
	inR, inW := io.Pipe()
	f := &blockingFramer{in: inR, release: make(chan struct{})}
	c := NewConn(f, ConnOptions{Handle: echo, OutgoingQueue: 4})
	runDone := make(chan error, 1)
	ctx, cancelRun := context.WithCancel(context.Background())
	go func() { runDone <- c.Run(ctx) }()

	sent := 0
	blocked := make(chan struct{})
	go func() {
		defer close(blocked)
		for {
			if err := c.Notify(context.Background(), "item/agentMessage/delta", map[string]string{"delta": "x"}); err != nil {
				return
			}
			sent++
		}
	}()
	// The writer holds one frame and the queue holds four; the fifth Notify blocks until
	// the connection ends.
	for c.QueueLen() < 4 {
		waitABit()
	}
	cancelRun()
	<-blocked
	if err := <-runDone; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	inW.Close()
	if sent > 5 {
		t.Errorf("%d notifications accepted with a queue of 4 and a stuck writer", sent)
	}
}

// Start hands out the id before the answer; two calls in flight do not wait for each other.
func TestStartConcurrentCalls(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo})
	ctx := context.Background()
	a, err := c.Start(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Start(ctx, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != Int64ID(0) || b.ID() != Int64ID(1) {
		t.Fatalf("ids %s, %s; want 0, 1", a.ID(), b.ID())
	}
	p.recv()
	p.recv()
	p.send(`{"id":1,"result":"B"}`) // answered out of order
	p.send(`{"id":0,"result":"A"}`)
	ra, errA := a.Wait(ctx)
	rb, errB := b.Wait(ctx)
	if errA != nil || errB != nil || string(ra) != `"A"` || string(rb) != `"B"` {
		t.Fatalf("answers %s %v, %s %v", ra, errA, rb, errB)
	}
}
