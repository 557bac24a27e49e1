package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// usageExitCode is the exit status of a command line that cannot be run as typed (clap's, so
// scripts see what Codex gives them).
const usageExitCode = 2

// checkMistypedSubcommand refuses `gocodex exce`: a lone word that is a letter or two from a
// subcommand is almost surely a typo, not a prompt for a new chat. `gocodex -- exce` still
// sends the word as a prompt. Words after the first (`gocodex exce "hi"`) do not change that.
func checkMistypedSubcommand(root *cobra.Command, args []string, s *iostreams.IOStreams) error {
	if len(args) == 0 || root.ArgsLenAtDash() == 0 {
		return nil
	}
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	near, ok := cli.SuggestSubcommand(args[0], names)
	if !ok {
		return nil
	}
	fmt.Fprintf(s.ErrOut, "Error: unrecognized subcommand '%s'\n\n  tip: a similar subcommand exists: '%s'\n\n"+
		"To send '%s' to the agent as a prompt, run: gocodex -- %s\n", args[0], near, args[0], args[0])
	return exitWith(usageExitCode)
}
