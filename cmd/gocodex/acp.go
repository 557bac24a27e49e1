package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/acp"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newAcpCommand is `gocodex acp`: the Agent Client Protocol over stdio, for editors (Zed,
// JetBrains IDEs, Neovim plugins) that drive coding agents.
func newAcpCommand(fac *faceopts.Factory) *cobra.Command {
	var opts acp.LaunchOptions
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Speak the Agent Client Protocol over stdio (for Zed, JetBrains IDEs and other editors)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return acp.Launch(cmd.Context(), fac, opts)
		},
	}
	opts.Flags.Register(cmd.Flags(), faceopts.Config|faceopts.Features|faceopts.Model|faceopts.Profile|
		faceopts.Sandbox|faceopts.Approval|faceopts.StrictConfig)
	return cmd
}
