package jsonrpc

import (
	"context"
	"io"
	"sync"
)

// Pipe returns two connected in-memory framers (for in-process clients and tests). Each
// direction holds at most one frame in flight, like an unbuffered socket; frames are copied.
func Pipe() (Framer, Framer) {
	ab := make(chan []byte)
	ba := make(chan []byte)
	done := make(chan struct{})
	var once sync.Once
	closeBoth := func() { once.Do(func() { close(done) }) }
	return &pipeEnd{in: ba, out: ab, done: done, close: closeBoth},
		&pipeEnd{in: ab, out: ba, done: done, close: closeBoth}
}

type pipeEnd struct {
	in, out chan []byte
	done    chan struct{}
	close   func()
}

func (p *pipeEnd) ReadFrame(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipeEnd) WriteFrame(ctx context.Context, frame []byte) error {
	b := append([]byte(nil), frame...)
	select {
	case p.out <- b:
		return nil
	case <-p.done:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends both directions: the other end reads EOF.
func (p *pipeEnd) Close() error {
	p.close()
	return nil
}
