package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newModelsCommand is `gocodex models`: the models a provider serves, with the catalog's
// metadata (gocodex's own command; Codex 0.169 has none).
func newModelsCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var flags faceopts.Flags
	var o cli.ModelsOptions
	cmd := &cobra.Command{
		Use:   "models [--provider ID] [--json]",
		Short: "List the models a provider serves, with the bundled catalog's metadata",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := loadConfig(fac, &flags)
			if err != nil {
				return err
			}
			hc, err := auth.HTTPClient(os.Getenv)
			if err != nil {
				return err
			}
			return exitWith(cli.RunModels(cmd.Context(), cfg, o, s.Out, s.ErrOut, os.Getenv, hc))
		},
	}
	flags.Register(cmd.Flags(), faceopts.Config|faceopts.Profile|faceopts.OSS)
	cmd.Flags().StringVar(&o.Provider, "provider", "", "provider id (default: the configured model_provider)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}
