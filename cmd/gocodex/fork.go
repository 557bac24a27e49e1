package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
)

// newForkCommand is `gocodex fork [SESSION_ID] [PROMPT] [--last] [--all]`, as `codex fork`:
// a new thread starts from a copy of a saved one (the original is left as it was) and the
// interactive UI opens on it.
func newForkCommand(s streams, run tuiRunner) *cobra.Command {
	var opts tuiOptions
	req := cli.ResumeRequest{Fork: true}
	cmd := &cobra.Command{
		Use:   "fork [SESSION_ID] [PROMPT]",
		Short: "Fork a previous interactive session (use --last to fork the most recent)",
		Long: "Fork a previous interactive session into a new one.\n\n" +
			"SESSION_ID is a session id (UUID) or session name; with --last the most recent session\n" +
			"of this directory is forked (any directory with --all). Without either, gocodex lists\n" +
			"the sessions it could fork (it has no picker yet).",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			resumeArgs(&req, &opts, args)
			opts.Resume = &req
			return run(cmd.Context(), opts, s)
		},
	}
	opts.registerFlags(cmd.Flags())
	cmd.Flags().BoolVar(&req.Last, "last", false, "fork the most recent session without showing the picker")
	cmd.Flags().BoolVar(&req.All, "all", false, "consider sessions of every directory (and show their directory)")
	return cmd
}
