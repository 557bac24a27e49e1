package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/execcli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// execRunner is the behaviour behind `gocodex exec`; tests of flag parsing pass their own.
type execRunner func(ctx context.Context, opts execcli.RunOptions, fac *faceopts.Factory) int

func runExec(ctx context.Context, opts execcli.RunOptions, fac *faceopts.Factory) int {
	return execcli.Run(ctx, fac, opts)
}

func newExecCommand(fac *faceopts.Factory, run execRunner) *cobra.Command {
	var opts execcli.RunOptions
	var experimentalJSON bool
	cmd := &cobra.Command{
		Use:     "exec [PROMPT]",
		Aliases: []string{"e"},
		Short:   "Run the agent non-interactively",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = opts.JSON || experimentalJSON
			if len(args) == 1 {
				opts.Prompt, opts.HasPrompt = args[0], true
			}
			return exitWith(run(cmd.Context(), opts, fac))
		},
	}
	f := cmd.PersistentFlags()
	f.BoolVar(&opts.JSON, "json", false, "print events to stdout as JSONL")
	f.BoolVar(&experimentalJSON, "experimental-json", false, "alias of --json")
	opts.Flags.Register(f, execcli.ExecFlags)
	f.BoolVar(&opts.SkipGitRepo, "skip-git-repo-check", false, "allow running outside a Git repository")
	f.StringVarP(&opts.OutputLast, "output-last-message", "o", "", "write the agent's last message to this file")
	f.StringVar(&opts.OutputSchema, "output-schema", "", "JSON Schema file describing the final response shape")
	f.StringVar(&opts.Color, "color", "auto", "color output: always, never, auto")
	f.BoolVar(&opts.Ephemeral, "ephemeral", false, "do not persist the session to disk")
	f.BoolVar(&opts.IgnoreRules, "ignore-rules", false, "do not load execpolicy .rules files")
	f.BoolVar(&opts.BypassHookTrust, "dangerously-bypass-hook-trust", false, "run lifecycle hooks that are not trusted, without review")
	// Accepted for compatibility with Codex clients; they change nothing here.
	var ignored string
	var ignoredBool bool
	f.StringVar(&ignored, "thread-source", "", "source classification for new threads")
	f.StringVar(&ignored, "cyber-access-program", "", "accepted for compatibility; ignored")
	f.BoolVar(&ignoredBool, "trust", false, "accepted for compatibility")
	for _, name := range []string{"thread-source", "cyber-access-program", "trust"} {
		_ = f.MarkHidden(name)
	}

	resume := &cobra.Command{
		Use:   "resume [SESSION_ID] [PROMPT]",
		Short: "Resume a previous session by id, or the most recent with --last",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = opts.JSON || experimentalJSON
			opts.Resume = true
			switch {
			case opts.ResumeLast && len(args) > 0:
				// With --last the only positional is the prompt.
				opts.Prompt, opts.HasPrompt = args[0], true
			case len(args) >= 1:
				id, err := sessionTarget(args[0])
				if err != nil {
					return err
				}
				opts.ResumeID = id
				if len(args) == 2 {
					opts.Prompt, opts.HasPrompt = args[1], true
				}
			}
			return exitWith(run(cmd.Context(), opts, fac))
		},
	}
	resume.Flags().BoolVar(&opts.ResumeLast, "last", false, "resume the most recent session")
	resume.Flags().BoolVar(&opts.ResumeAll, "all", false, "consider sessions from every directory")
	cmd.AddCommand(resume)
	cmd.AddCommand(newReviewCommand(fac, run, &opts, &experimentalJSON))
	cmd.AddCommand(newExecForkCommand(fac, run, &opts, &experimentalJSON))
	refuseCodexOnlyExecFlags(cmd, &opts)
	return cmd
}
