package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// A client that stops reading holds up at most OutgoingBytes of frames, however many the
// queue could count: the sender blocks at the byte bound. Once the client reads again, every
// frame arrives, in order; a frame larger than the bound goes out alone.
func TestOutgoingBytesBound(t *testing.T) {
	inR, inW := io.Pipe()
	f := &blockingFramer{in: inR, release: make(chan struct{})}
	const bound = 1000
	c := NewConn(f, ConnOptions{Handle: echo, OutgoingQueue: 1024, OutgoingBytes: bound})
	runDone := make(chan error, 1)
	ctx, cancelRun := context.WithCancel(context.Background())
	go func() { runDone <- c.Run(ctx) }()

	delta := strings.Repeat("x", 60)
	frame, _ := Encode(&Notification{Method: "d", Params: []byte(`{"delta":"` + delta + `"}`)})
	var sent atomic.Int64
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if err := c.Notify(context.Background(), "d", map[string]string{"delta": delta}); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	// The writer holds one frame (once it has taken it), the queue the others that fit; the
	// next Notify blocks.
	most := bound / len(frame)
	for c.QueueLen() < most-1 {
		waitABit()
	}
	for range 1000 { // room for a sender that is not held back to run ahead
		waitABit()
	}
	n := sent.Load() // read before the writer is stopped, which frees its frame's bytes
	if q := c.QueueLen(); q > most {
		t.Errorf("%d frames queued behind the stuck writer, want at most %d", q, most)
	}
	cancelRun()
	<-stopped
	if err := <-runDone; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	inW.Close()
	if n > int64(most) {
		t.Errorf("%d frames of %d bytes accepted with a bound of %d bytes and a stuck writer, want at most %d", n, len(frame), bound, most)
	}
}

// Frames keep their order through the byte bound, a frame over the bound included, with
// several senders queueing one after the other.
func TestOutgoingBytesKeepOrder(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo, OutgoingBytes: 256})
	big := strings.Repeat("y", 1000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			text := fmt.Sprint(i)
			if i == 25 {
				text = big
			}
			if err := c.Notify(context.Background(), "n", map[string]string{"text": text}); err != nil {
				t.Errorf("notify %d: %v", i, err)
				return
			}
		}
	}()
	for i := range 50 {
		text := fmt.Sprint(i)
		if i == 25 {
			text = big
		}
		if got, want := p.recv(), `{"method":"n","params":{"text":"`+text+`"}}`; got != want {
			t.Fatalf("frame %d = %.80q, want %.80q", i, got, want)
		}
	}
	<-done
}

type appendedParams struct{ text string }

func (p appendedParams) AppendParams(dst []byte) ([]byte, error) {
	return append(dst, `{"text":"`+p.text+`"}`...), nil
}

// Params that append themselves make the same frame as the same params marshalled.
func TestNotifyWithParamsAppender(t *testing.T) {
	c, p := startConn(t, ConnOptions{Handle: echo})
	if err := c.Notify(context.Background(), "a", appendedParams{"x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(context.Background(), "a", map[string]string{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	if first, second := p.recv(), p.recv(); first != second || first != `{"method":"a","params":{"text":"x"}}` {
		t.Errorf("frames %q and %q", first, second)
	}
}
