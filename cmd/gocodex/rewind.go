package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newRewindCommand is `gocodex rewind THREAD_ID --turns N [--dry-run]` (gocodex's own; Codex
// 0.169 has no rewind): the last N turns undone, files and conversation.
func newRewindCommand(fac *faceopts.Factory) *cobra.Command {
	var flags faceopts.Flags
	var o cli.RewindOptions
	cmd := &cobra.Command{
		Use:   "rewind THREAD_ID --turns N [--dry-run]",
		Short: "Undo the last turns of a thread: the files they changed and the conversation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Turns < 1 {
				return errors.New("--turns must be at least 1")
			}
			o.ThreadID = args[0]
			cfg, _, err := loadConfig(fac, &flags)
			if err != nil {
				return err
			}
			return exitWith(cli.RunRewind(cmd.Context(), fac, cfg, o))
		},
	}
	flags.Register(cmd.Flags(), faceopts.Config|faceopts.Profile)
	cmd.Flags().IntVar(&o.Turns, "turns", 1, "how many of the last turns to undo")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "list what would change, change nothing")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the rewind as JSON")
	return cmd
}
