package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/execcli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newReviewCommand is `review [PROMPT]`, both at the top level and under exec: a code review
// run non-interactively, as `exec` runs a prompt. opts carries exec's flags.
func newReviewCommand(fac *faceopts.Factory, run execRunner, opts *execcli.RunOptions, experimentalJSON *bool) *cobra.Command {
	s := fac.IO
	var r execcli.ReviewOptions
	cmd := &cobra.Command{
		Use:   "review [PROMPT]",
		Short: "Run a code review non-interactively",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if msg := reviewConflict(cmd, r, len(args) == 1); msg != "" {
				fmt.Fprintf(s.ErrOut, "error: %s\n\nUsage: gocodex review [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.\n", msg)
				return exitWith(2)
			}
			o := *opts
			if experimentalJSON != nil {
				o.JSON = o.JSON || *experimentalJSON
			}
			if len(args) == 1 {
				o.Prompt, o.HasPrompt = args[0], true
			}
			o.Review = &r
			return exitWith(run(cmd.Context(), o, fac))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&r.Uncommitted, "uncommitted", false, "Review staged, unstaged, and untracked changes")
	f.StringVar(&r.Base, "base", "", "Review changes against the given base branch")
	f.StringVar(&r.Commit, "commit", "", "Review the changes introduced by a commit")
	f.StringVar(&r.Title, "title", "", "Optional commit title to display in the review summary")
	return cmd
}

// reviewConflict is the usage error of targets given together, as Codex's clap rules word it.
func reviewConflict(cmd *cobra.Command, r execcli.ReviewOptions, prompt bool) string {
	set := func(name string) bool { return cmd.Flags().Changed(name) }
	targets := []struct {
		name, arg string
		on        bool
	}{
		{"uncommitted", "--uncommitted", set("uncommitted")},
		{"base", "--base <BRANCH>", set("base")},
		{"commit", "--commit <SHA>", set("commit")},
		{"prompt", "[PROMPT]", prompt},
	}
	var first string
	for _, t := range targets {
		if !t.on {
			continue
		}
		if first != "" {
			return fmt.Sprintf("the argument '%s' cannot be used with '%s'", first, t.arg)
		}
		first = t.arg
	}
	if set("title") && !set("commit") {
		return "the following required arguments were not provided:\n  --commit <SHA>"
	}
	return ""
}

// newTopReviewCommand is `gocodex review`: exec's flags and the review targets.
func newTopReviewCommand(fac *faceopts.Factory, run execRunner) *cobra.Command {
	opts := &execcli.RunOptions{}
	cmd := newReviewCommand(fac, run, opts, nil)
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print events to stdout as JSONL")
	opts.Flags.Register(f, execcli.ExecFlags)
	f.BoolVar(&opts.SkipGitRepo, "skip-git-repo-check", false, "allow running outside a Git repository")
	f.StringVarP(&opts.OutputLast, "output-last-message", "o", "", "write the agent's last message to this file")
	f.StringVar(&opts.Color, "color", "auto", "color output: always, never, auto")
	f.BoolVar(&opts.Ephemeral, "ephemeral", false, "do not persist the session to disk")
	// Accepted as `gocodex exec` accepts them (see there).
	var ignoredBool bool
	f.BoolVar(&ignoredBool, "trust", false, "accepted for compatibility")
	_ = f.MarkHidden("trust")
	return cmd
}
