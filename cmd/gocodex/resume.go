package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newResumeCommand is `gocodex resume [SESSION_ID] [PROMPT] [--last] [--all]`, as `codex
// resume`: the interactive UI on a saved thread, its conversation on screen.
func newResumeCommand(fac *faceopts.Factory, run tuiRunner) *cobra.Command {
	cmd, req := newSessionUICommand(fac, run, cli.ResumeRequest{}, sessionUIHelp{
		use:   "resume [SESSION_ID] [PROMPT]",
		short: "Resume a previous interactive session (use --last to continue the most recent)",
		long: "Resume a previous interactive session.\n\n" +
			"SESSION_ID is a session id (UUID) or session name; a UUID takes precedence if it parses.\n" +
			"With --last the most recent session of this directory is resumed (any directory with --all).\n" +
			"Without either (or with an unknown one), a picker of the saved sessions opens; without a terminal they are listed.",
		last: "continue the most recent session without showing the picker",
	})
	cmd.Flags().BoolVar(&req.IncludeNonInteractive, "include-non-interactive", false, "include exec sessions in --last and the list")
	return cmd
}

// sessionUIHelp is what resume and fork say of themselves.
type sessionUIHelp struct{ use, short, long, last string }

// newSessionUICommand is the command shared by resume and fork: the interactive UI on a saved
// session named by id or name, or the latest with --last. It returns the request its flags
// fill, for flags of the command's own.
func newSessionUICommand(fac *faceopts.Factory, run tuiRunner, req cli.ResumeRequest, help sessionUIHelp) (*cobra.Command, *cli.ResumeRequest) {
	var opts tuiOptions
	r := &req
	cmd := &cobra.Command{
		Use:   help.use,
		Short: help.short,
		Long:  help.long,
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			resumeArgs(r, &opts, args)
			opts.Resume = r
			return run(cmd.Context(), opts, fac)
		},
	}
	opts.registerFlags(cmd.Flags())
	cmd.Flags().BoolVar(&r.Last, "last", false, help.last)
	cmd.Flags().BoolVar(&r.All, "all", false, "consider sessions of every directory (and show their directory)")
	return cmd, r
}

// resumeArgs sorts resume's and fork's positionals: with --last the only one is the prompt.
func resumeArgs(req *cli.ResumeRequest, opts *tuiOptions, args []string) {
	switch {
	case req.Last && len(args) > 0:
		opts.Prompt = args[0]
	case len(args) >= 1:
		req.Session = args[0]
		if len(args) == 2 {
			opts.Prompt = args[1]
		}
	}
}
