package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// exitError carries a process exit code through cobra without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func exitCodeOf(err error) (int, bool) {
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code, true
	}
	return 0, false
}

func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code: code}
}

func newRootCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	root := &cobra.Command{
		Use:           "gocodex",
		Short:         "A coding agent, wire-compatible with OpenAI's Codex CLI",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	addTUIFlags(root, fac, runTUI)
	addVersionFlags(root, fac)
	root.AddCommand(newExecCommand(fac, runExec))
	root.AddCommand(newTopReviewCommand(fac, runExec))
	root.AddCommand(newProtoCommand(fac))
	root.AddCommand(newAcpCommand(fac))
	root.AddCommand(newAppServerCommand(fac, runAppServer))
	root.AddCommand(newMcpServerCommand(fac, runMcpServer))
	root.AddCommand(newMcpCommand(fac))
	root.AddCommand(newExecpolicyCommand(fac))
	root.AddCommand(newSandboxCommand(fac))
	root.AddCommand(newLoginCommands(fac)...)
	root.AddCommand(newModelsCommand(fac))
	root.AddCommand(newRewindCommand(fac))
	root.AddCommand(newFeaturesCommand(fac))
	root.AddCommand(newMigrateRolloutsCommand(fac))
	root.AddCommand(newArchiveCommand(fac), newUnarchiveCommand(fac), newDeleteCommand(fac))
	root.CompletionOptions.DisableDefaultCmd = true // Codex's form instead: completion [SHELL]
	root.AddCommand(newCompletionCommand(fac))
	root.AddCommand(newResumeCommand(fac, runTUI), newForkCommand(fac, runTUI))
	root.AddCommand(newDoctorCommand(fac), newApplyCommand(fac))
	root.AddCommand(newFleetCommand(fac))
	groupCommands(root, fac)
	markUsageErrors(root)
	return root
}

// groupCommands lists, in help, gocodex's commands first and Codex's commands it lacks
// apart (unsupported.go). It runs last so every command added above lands in a group.
func groupCommands(root *cobra.Command, fac *faceopts.Factory) {
	root.AddGroup(&cobra.Group{ID: "commands", Title: "Commands:"},
		&cobra.Group{ID: unsupportedGroup, Title: "Codex commands gocodex does not support (each says why):"})
	for _, c := range root.Commands() {
		if c.GroupID == "" {
			c.GroupID = "commands"
		}
	}
	root.AddCommand(newUnsupportedCommands(fac)...)
	root.SetHelpCommandGroupID("commands")
}

// loadConfig is the configuration a one-shot command runs with: its flags over config.toml.
func loadConfig(fac *faceopts.Factory, flags *faceopts.Flags) (*config.Config, []config.Warning, error) {
	lo, err := flags.LoadOptions(fac.Getenv, faceopts.FullAutoSandboxOnly)
	if err != nil {
		return nil, nil, err
	}
	return fac.Config(lo)
}
