package main

import (
	"context"

	"github.com/spf13/cobra"

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
	if err := faceopts.CheckFeatureNames(opts.Enable, opts.Disable); err != nil {
		return err
	}
	lo := config.LoadOptions{CLIOverrides: faceopts.FeatureOverrides(opts.Configs, opts.Enable, opts.Disable), StrictConfig: opts.StrictConfig}
	return mcpserver.Launch(ctx, fac, &faceopts.Calls{Factory: fac, Base: lo})
}
