package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// Launch runs `gocodex mcp-server` over the process's stdio on the factory: calls hold the
// command's flags over config.toml. The host is built on the first codex call, with that
// call's configuration; each call loads its own configuration on top of the command's and
// runs its thread on the one host.
func Launch(ctx context.Context, fac *faceopts.Factory, calls *faceopts.Calls) error {
	s := fac.IO
	// A configuration that does not load fails the server at start, not every call.
	cfg, warnings, err := calls.LoadBase()
	if err != nil {
		return err
	}
	// stdout is the MCP wire: the configuration warnings go to stderr, as proto's do.
	for _, w := range warnings {
		fmt.Fprintln(s.ErrOut, "warning: "+w.String())
	}
	log := fac.Logger(cfg, "mcp-server", slog.LevelWarn)
	srv := New(Options{Calls: calls, Logger: log})
	return srv.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(s.In), Writer: nopWriteCloser{s.Out}})
}

// nopWriteCloser leaves stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
