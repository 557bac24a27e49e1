package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newForkCommand is `gocodex fork [SESSION_ID] [PROMPT] [--last] [--all]`, as `codex fork`:
// a new thread starts from a copy of a saved one (the original is left as it was) and the
// interactive UI opens on it.
func newForkCommand(fac *faceopts.Factory, run tuiRunner) *cobra.Command {
	cmd, _ := newSessionUICommand(fac, run, cli.ResumeRequest{Fork: true}, sessionUIHelp{
		use:   "fork [SESSION_ID] [PROMPT]",
		short: "Fork a previous interactive session (use --last to fork the most recent)",
		long: "Fork a previous interactive session into a new one.\n\n" +
			"SESSION_ID is a session id (UUID) or session name; with --last the most recent session\n" +
			"of this directory is forked (any directory with --all). Without either, gocodex lists\n" +
			"the sessions it could fork (it has no picker yet).",
		last: "fork the most recent session without showing the picker",
	})
	return cmd
}
