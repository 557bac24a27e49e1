package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newDoctorCommand is `gocodex doctor`, as `codex doctor`: checks of the installation, the
// configuration, the credentials, the sandbox and the provider, with what to fix.
func newDoctorCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var flags faceopts.Flags
	var o cli.DoctorOptions
	var all, noColor bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Diagnose the local gocodex installation, config, auth, and runtime health",
		Long: "Diagnose the local gocodex installation, config, auth, and runtime health.\n\n" +
			"Exits 1 when a check fails (warnings exit 0). The provider probe waits at most 5 seconds.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Load = func() (*config.Config, []config.Warning, error) { return loadConfig(fac, &flags) }
			o.Getenv = os.Getenv
			o.Color = !noColor && s.ColorStdout("auto")
			return exitWith(cli.RunDoctor(cmd.Context(), o, s.Out, s.ErrOut))
		},
	}
	flags.Register(cmd.Flags(), faceopts.Config|faceopts.Features)
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "emit a redacted machine-readable report")
	f.BoolVar(&o.NetworkOnly, "network-only", false, "run only the config, network environment and provider HTTP checks")
	f.BoolVar(&o.Summary, "summary", false, "only show the check rows and the final count summary")
	f.BoolVar(&all, "all", false, "expand long lists (gocodex never shortens them)")
	f.BoolVar(&noColor, "no-color", false, "disable ANSI color in human output")
	f.BoolVar(&o.ASCII, "ascii", false, "use ASCII status labels and separators")
	// Tests shorten the provider probe's deadline; people have no reason to.
	f.DurationVar(&o.ReachTimeout, "reach-timeout", cli.DefaultReachTimeout, "how long to wait for the model provider")
	_ = f.MarkHidden("reach-timeout")
	return cmd
}
