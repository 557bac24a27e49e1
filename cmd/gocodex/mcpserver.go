package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/mcpserver"
)

// mcpServerOptions are the flags of `gocodex mcp-server` (Codex's names).
type mcpServerOptions struct {
	faceopts.Flags
}

// mcpServerRunner is the behaviour behind the command; flag tests pass their own.
type mcpServerRunner func(ctx context.Context, opts mcpServerOptions, fac *faceopts.Factory) error

func newMcpServerCommand(fac *faceopts.Factory, run mcpServerRunner) *cobra.Command {
	var opts mcpServerOptions
	cmd := &cobra.Command{
		Use:   "mcp-server",
		Short: "Run Codex as an MCP server over stdio (tools: codex, codex-reply)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), opts, fac)
		},
	}
	f := cmd.Flags()
	opts.Flags.Register(f, faceopts.Config|faceopts.Features|faceopts.StrictConfig)
	return cmd
}

func runMcpServer(ctx context.Context, opts mcpServerOptions, fac *faceopts.Factory) error {
	s := fac.IO
	if err := faceopts.CheckFeatureNames(opts.Enable, opts.Disable); err != nil {
		return err
	}
	lo := config.LoadOptions{CLIOverrides: faceopts.FeatureOverrides(opts.Configs, opts.Enable, opts.Disable), StrictConfig: opts.StrictConfig}
	// A configuration that does not load fails the server at start, not every call.
	cfg, warnings, err := fac.Config(lo)
	if err != nil {
		return err
	}
	// stdout is the MCP wire: the configuration warnings go to stderr, as proto's do.
	for _, w := range warnings {
		fmt.Fprintln(s.ErrOut, "warning: "+w.String())
	}
	log := fac.Logger(cfg, "mcp-server", slog.LevelWarn)
	// The host is built on the first codex call, with that call's configuration; each call
	// loads its own configuration on top of lo and runs its thread on the one host.
	srv := mcpserver.New(mcpserver.Options{LoadOptions: lo, LoadConfig: fac.ThreadConfig, Logger: log,
		Host: func(cfg *config.Config) (*app.App, error) { return fac.Host(app.Options{Config: cfg}) }})
	return srv.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(s.In), Writer: nopWriteCloser{s.Out}})
}

// nopWriteCloser leaves stdout open when the transport closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
