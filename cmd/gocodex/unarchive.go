package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
)

// newUnarchiveCommand is `gocodex unarchive SESSION`, as `codex unarchive`.
func newUnarchiveCommand(s streams) *cobra.Command {
	var flags sessionCommandFlags
	cmd := &cobra.Command{
		Use:   "unarchive SESSION",
		Short: "Unarchive a saved session by id or session name",
		Long: "Unarchive a saved session by id or session name.\n\n" +
			"SESSION is a session id (UUID) or session name; a UUID takes precedence if it parses.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := sessionCodexHome(&flags)
			if err != nil {
				return err
			}
			return exitWith(cli.RunUnarchive(home, args[0], sessionIO(s)))
		},
	}
	flags.register(cmd.Flags())
	return cmd
}
