package acp

import (
	"bytes"
	"context"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// envelopeFramer adds `"jsonrpc":"2.0"` to every frame it writes: ACP clients (the official
// SDK among them) drop messages without it, while internal/jsonrpc writes Codex's app-server
// form, which omits it.
type envelopeFramer struct{ jsonrpc.Framer }

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
