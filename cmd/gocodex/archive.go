package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// newArchiveCommand is `gocodex archive SESSION`, as `codex archive`.
func newArchiveCommand(fac *faceopts.Factory) *cobra.Command {
	return newMoveSessionCommand(fac, "archive", "Archive", cli.RunArchive)
}

// newUnarchiveCommand is `gocodex unarchive SESSION`, as `codex unarchive`.
func newUnarchiveCommand(fac *faceopts.Factory) *cobra.Command {
	return newMoveSessionCommand(fac, "unarchive", "Unarchive", cli.RunUnarchive)
}

// newMoveSessionCommand is archive or unarchive: one saved session, by id or name, moved.
func newMoveSessionCommand(fac *faceopts.Factory, name, verb string, run func(home, session string, ios *iostreams.IOStreams) int) *cobra.Command {
	var flags sessionCommandFlags
	cmd := &cobra.Command{
		Use:   name + " SESSION",
		Short: verb + " a saved session by id or session name",
		Long: verb + " a saved session by id or session name.\n\n" +
			"SESSION is a session id (UUID) or session name; a UUID takes precedence if it parses.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := sessionCodexHome(fac, &flags)
			if err != nil {
				return err
			}
			return exitWith(run(home, args[0], fac.IO))
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// sessionCodexHome is the CODEX_HOME a session command acts in, read with its flags.
func sessionCodexHome(fac *faceopts.Factory, flags *sessionCommandFlags) (string, error) {
	if err := checkNoRemote(flags.Remote, flags.RemoteTokenEnv); err != nil {
		return "", err
	}
	cfg, _, err := loadConfig(fac, &flags.Flags)
	if err != nil {
		return "", err
	}
	return cfg.CodexHome, nil
}
