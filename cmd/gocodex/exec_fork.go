package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/execcli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newExecForkCommand is `gocodex exec fork SESSION_ID [PROMPT]`, as `codex exec fork`: a new
// thread starts from a copy of the saved one (by id, or by name as session_index.jsonl
// gives it) and runs the prompt non-interactively; the original is left as it was.
func newExecForkCommand(fac *faceopts.Factory, run execRunner, opts *execcli.RunOptions, experimentalJSON *bool) *cobra.Command {
	return &cobra.Command{
		Use:   "fork SESSION_ID [PROMPT]",
		Short: "Fork a previous session by id into a new session",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = opts.JSON || *experimentalJSON
			id, err := sessionTarget(args[0])
			if err != nil {
				return err
			}
			opts.Resume, opts.ForkID = true, id
			if len(args) == 2 {
				opts.Prompt, opts.HasPrompt = args[1], true
			}
			return exitWith(run(cmd.Context(), *opts, fac))
		},
	}
}

// sessionTarget is the thread id `exec fork` and `exec resume` are given: a UUID as it is,
// a name looked up in session_index.jsonl among the saved sessions of any source.
func sessionTarget(arg string) (string, error) {
	if id, ok := cli.ParseSessionUUID(arg); ok {
		return id, nil
	}
	home, err := config.CodexHome(os.Getenv)
	if err != nil {
		return "", err
	}
	sess, err := cli.ResolveSessionAnySource(home, arg, cli.ActiveSessions)
	if err != nil {
		return "", fmt.Errorf("no saved session found with id or name %q", arg)
	}
	return sess.ID, nil
}

// refuseCodexOnlyExecFlags adds Codex's exec flag gocodex cannot honour (--approve-for-me) to
// exec and its subcommands, so that it answers clearly instead of "unknown flag" or a silent
// run without it; and --worktree, which exec honours.
func refuseCodexOnlyExecFlags(cmd *cobra.Command, opts *execcli.RunOptions) {
	var approveForMe bool
	f := cmd.PersistentFlags()
	f.BoolVar(&approveForMe, "approve-for-me", false, "not supported by gocodex: route approvals through automatic review")
	f.BoolVar(&opts.Worktree, "worktree", false, "run the session in a new managed Git worktree (in $CODEX_HOME/worktrees)")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		return interactiveExtras{ApproveForMe: approveForMe}.check(false)
	}
}
