package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// ConnectDropSlow is Connect for a connection treated as a websocket one: hung up on when it
// falls a whole queue behind a thread. The in-memory pipe buffers nothing, so the tests
// know exactly when a client that stops reading stalls.
func ConnectDropSlow(ctx context.Context, srv *Server, opts ClientOptions) *Client {
	a, b := jsonrpc.Pipe()
	served := make(chan struct{})
	go func() { // owned by the client: Close waits for it
		defer close(served)
		_ = srv.serveConn(ctx, b, true)
	}()
	c := NewClient(ctx, a, opts)
	c.extra = served
	return c
}
