package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
)

// usageError is a command line that cannot be parsed as typed: an unknown flag, a missing
// or extra argument, an unknown subcommand. It exits 2, as Codex's (clap's) usage errors do,
// so scripts can tell "you typed it wrong" from "it failed" (1).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// markUsageErrors makes every command's flag and argument errors usageErrors.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if validate := c.Args; validate != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := validate(cmd, args)
				if _, ok := exitCodeOf(err); err == nil || ok {
					return err // a validator that printed its own answer (mistyped subcommand)
				}
				if cmd.HasParent() && cmd.HasSubCommands() && len(args) > 0 {
					return unknownSubcommand(cmd, args)
				}
				return usageError{err}
			}
		}
		if c.HasParent() && c.HasSubCommands() && !c.Runnable() {
			c.RunE = unknownSubcommand
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// unknownSubcommand answers a command that only groups subcommands (mcp, features, …) when
// none of them was named: the usage when nothing follows, the nearest subcommand when a word
// does, a usage error either way, as Codex's `codex mcp lsit` is.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		cmd.PrintErr(cmd.UsageString())
		return exitWith(usageExitCode)
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
			names = append(names, sub.Aliases...)
		}
	}
	msg := fmt.Sprintf("unrecognized subcommand '%s'", args[0])
	if near, ok := cli.SuggestSubcommand(args[0], names); ok {
		msg += fmt.Sprintf("\n\n  tip: a similar subcommand exists: '%s'", near)
	}
	return usageError{errors.New(msg + "\n\nUsage: " + cmd.UseLine())}
}

// asUsageError says whether err is a usage error, cobra's own unknown-subcommand error
// (raised before any validator runs) included.
func asUsageError(err error) (usageError, bool) {
	var ue usageError
	if errors.As(err, &ue) {
		return ue, true
	}
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return usageError{err}, true
	}
	return usageError{}, false
}
