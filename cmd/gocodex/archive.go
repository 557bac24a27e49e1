package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// newArchiveCommand is `gocodex archive SESSION`, as `codex archive`.
func newArchiveCommand(s streams) *cobra.Command {
	return newMoveSessionCommand(s, "archive", "Archive", cli.RunArchive)
}

// newUnarchiveCommand is `gocodex unarchive SESSION`, as `codex unarchive`.
func newUnarchiveCommand(s streams) *cobra.Command {
	return newMoveSessionCommand(s, "unarchive", "Unarchive", cli.RunUnarchive)
}

// newMoveSessionCommand is archive or unarchive: one saved session, by id or name, moved.
func newMoveSessionCommand(s streams, name, verb string, run func(home, session string, io cli.SessionCommandIO) int) *cobra.Command {
	var flags sessionCommandFlags
	cmd := &cobra.Command{
		Use:   name + " SESSION",
		Short: verb + " a saved session by id or session name",
		Long: verb + " a saved session by id or session name.\n\n" +
			"SESSION is a session id (UUID) or session name; a UUID takes precedence if it parses.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := sessionCodexHome(&flags)
			if err != nil {
				return err
			}
			return exitWith(run(home, args[0], sessionIO(s)))
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// sessionCodexHome is the CODEX_HOME a session command acts in, read with its flags.
func sessionCodexHome(flags *sessionCommandFlags) (string, error) {
	if err := checkNoRemote(flags.Remote, flags.RemoteTokenEnv); err != nil {
		return "", err
	}
	cfg, _, err := loadConfig(&flags.Flags)
	if err != nil {
		return "", err
	}
	return cfg.CodexHome, nil
}

func sessionIO(s streams) cli.SessionCommandIO {
	return cli.SessionCommandIO{In: s.In, Out: s.Out, ErrOut: s.ErrOut, Terminal: faceopts.IsTerminal(s.In)}
}
