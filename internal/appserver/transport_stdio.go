package appserver

import (
	"context"
	"io"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// ServeStdio serves one client over a line-delimited byte stream (the default transport).
// It returns when in ends (after answering what was already read) or ctx ends. A reader that
// cannot be interrupted (os.Stdin) should be passed through a pipe the caller can close.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	return s.ServeConn(ctx, jsonrpc.NewLineFramer(in, out, in, s.opts.MaxFrame))
}
