package acp

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// envelopeFramer adds `"jsonrpc":"2.0"` to every frame it writes: ACP clients (the official
// SDK among them) drop messages without it, while internal/jsonrpc writes Codex's app-server
// form, which omits it. It also tells the server when the client hangs up (hangUp), since
// the connection then waits for the prompts still running.
type envelopeFramer struct {
	jsonrpc.Framer
	hangUp func()
}

func (f envelopeFramer) ReadFrame(ctx context.Context) ([]byte, error) {
	b, err := f.Framer.ReadFrame(ctx)
	if errors.Is(err, io.EOF) && f.hangUp != nil {
		f.hangUp()
	}
	return b, err
}

var envelope = []byte(`{"jsonrpc":"2.0",`)

func (f envelopeFramer) WriteFrame(ctx context.Context, frame []byte) error {
	if len(frame) > 1 && frame[0] == '{' && !bytes.HasPrefix(frame, []byte(`{"jsonrpc"`)) {
		b := make([]byte, 0, len(frame)+len(envelope)-1)
		b = append(append(b, envelope...), frame[1:]...)
		frame = b
	}
	return f.Framer.WriteFrame(ctx, frame)
}

// Flush passes the connection's flush on to a buffering framer.
func (f envelopeFramer) Flush() error {
	if fl, ok := f.Framer.(jsonrpc.Flusher); ok {
		return fl.Flush()
	}
	return nil
}
