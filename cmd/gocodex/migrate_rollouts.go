package main

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newMigrateRolloutsCommand is `gocodex migrate-rollouts [--apply] [--thread ID]… [--json]
// [--verbose] [--max-mib-per-second N]`, Codex 0.169's command: threads recorded in the
// older form are rewritten in the paginated form Codex lists and resumes.
func newMigrateRolloutsCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var flags faceopts.Flags
	var o cli.MigrateRolloutsOptions
	var threads []string
	var maxMiB int64
	cmd := &cobra.Command{
		Use:   "migrate-rollouts",
		Short: "Inspect or migrate legacy local sessions to paginated thread history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, t := range threads {
				if _, err := uuid.Parse(t); err != nil {
					fmt.Fprintf(s.ErrOut, "error: invalid value '%s' for '--thread <THREAD_ID>': %v\n", t, err)
					return exitWith(2)
				}
			}
			if cmd.Flags().Changed("max-mib-per-second") && maxMiB < 1 {
				fmt.Fprintf(s.ErrOut, "error: invalid value '%d' for '--max-mib-per-second <MIB>': must be at least 1\n", maxMiB)
				return exitWith(2)
			}
			cfg, _, err := loadConfig(fac, &flags)
			if err != nil {
				return err
			}
			o.Threads, o.MaxMiBPerSecond = threads, maxMiB
			return exitWith(cli.RunMigrateRollouts(cfg.CodexHome, o, s.Out, s.ErrOut))
		},
	}
	flags.Register(cmd.Flags(), faceopts.Config|faceopts.Features)
	cmd.Flags().BoolVar(&o.Apply, "apply", false, "publish the migration; without it the command only reports eligible sessions")
	cmd.Flags().StringArrayVar(&threads, "thread", nil, "restrict inspection or migration to one or more thread IDs")
	cmd.Flags().Int64Var(&maxMiB, "max-mib-per-second", 0, "limit aggregate rollout read and write throughput, in MiB per second")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "emit the complete per-thread report as JSON")
	cmd.Flags().BoolVar(&o.Verbose, "verbose", false, "print one line for every inspected rollout")
	return cmd
}
