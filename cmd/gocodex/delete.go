package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newDeleteCommand is `gocodex delete [--force] SESSION`, as `codex delete`.
func newDeleteCommand(fac *faceopts.Factory) *cobra.Command {
	var flags sessionCommandFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "delete SESSION",
		Short: "Permanently delete a saved session by id or session name",
		Long: "Permanently delete a saved session by id or session name.\n\n" +
			"SESSION is a session id (UUID) or session name; a UUID takes precedence if it parses.\n" +
			"Without --force the deletion is confirmed at the terminal.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := sessionCodexHome(fac, &flags)
			if err != nil {
				return err
			}
			return exitWith(cli.RunDelete(cmd.Context(), home, args[0], force, fac.IO))
		},
	}
	flags.register(cmd.Flags())
	cmd.Flags().BoolVar(&force, "force", false, "delete without prompting; SESSION must be a UUID")
	return cmd
}
