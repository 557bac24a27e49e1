package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// unsupportedCommands are the subcommands Codex 0.169 lists that gocodex does not have, each
// with why. They exist so that `gocodex cloud …` says so instead of starting a chat with
// "cloud" as the prompt (or suggesting a near name); help lists them apart.
var unsupportedCommands = []struct{ name, what, why string }{
	{"agents", "Open the agent command center", "gocodex's terminal UI has no agent command center"},
	{"plugin", "Manage Codex plugins", "gocodex has no plugin marketplace client"},
	{"remote-control", "Manage the app-server daemon with remote control", "gocodex runs no app-server daemon; start `gocodex app-server --listen ws://…` yourself"},
	{"update", "Update Codex to the latest version", "gocodex does not update itself; install a newer build"},
	{"debug", "Debugging tools", "gocodex has none of Codex's debugging subcommands"},
	{"queue", "Queue a message for an existing session", "gocodex runs no background server to queue messages with"},
	{"migrate-nfs-db", "Migrate SQLite databases to DELETE mode", "gocodex keeps no SQLite databases"},
	{"cloud", "Browse tasks from Codex Cloud", "gocodex has no Codex Cloud client"},
	{"exec-server", "Run the standalone exec-server service", "gocodex has no exec-server"},
}

// unsupportedGroup is the help section the commands above are listed in.
const unsupportedGroup = "unsupported"

func newUnsupportedCommands(fac *faceopts.Factory) []*cobra.Command {
	s := fac.IO
	var cmds []*cobra.Command
	for _, u := range unsupportedCommands {
		cmds = append(cmds, &cobra.Command{
			Use:                u.name,
			Short:              u.what + " (Codex only)",
			GroupID:            unsupportedGroup,
			DisableFlagParsing: true, // whatever follows, the answer is the same
			RunE: func(cmd *cobra.Command, args []string) error {
				fmt.Fprintf(s.ErrOut, "Error: `%s` is not supported by gocodex: %s.\n", u.name, u.why)
				return exitWith(1)
			},
		})
	}
	return cmds
}
