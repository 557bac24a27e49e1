package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
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
				return usageError{err}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
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
