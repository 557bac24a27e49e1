package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// newApplyCommand is `gocodex apply TASK_ID` (alias `a`), which in Codex fetches the diff a
// Codex Cloud task produced and `git apply`s it. gocodex has no Codex Cloud client, so the
// command says so instead of pretending: a local session's changes are already in the
// working tree.
func newApplyCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var ignored faceopts.Flags
	cmd := &cobra.Command{
		Use:     "apply TASK_ID",
		Aliases: []string{"a"},
		Short:   "Apply the diff of a Codex Cloud task (not supported: gocodex has no Codex Cloud client)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(s.ErrOut, "Error: gocodex does not support Codex Cloud: `apply %s` would fetch that cloud task's diff, "+
				"which only Codex (signed in with ChatGPT) can do.\n"+
				"Changes made by local gocodex sessions are already in your working tree (`git diff`, or /diff in the terminal UI).\n", args[0])
			return exitWith(1)
		},
	}
	ignored.Register(cmd.Flags(), faceopts.Config|faceopts.Features)
	return cmd
}
