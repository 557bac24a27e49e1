package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/version"
)

// streams is where a command reads and writes; tests pass buffers.
type streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

func defaultStreams() streams { return streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

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

func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "gocodex",
		Short:         "A coding agent, wire-compatible with OpenAI's Codex CLI",
		Version:       version.Full(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetVersionTemplate("{{.Version}}\n")
	addTUIFlags(root, s, runTUI)
	addVersionFlags(root, s)
	root.AddCommand(newExecCommand(s, runExec))
	root.AddCommand(newTopReviewCommand(s, runExec))
	root.AddCommand(newProtoCommand(s))
	root.AddCommand(newAppServerCommand(s, runAppServer))
	root.AddCommand(newMcpServerCommand(s, runMcpServer))
	root.AddCommand(newMcpCommand(s, os.Getenv))
	root.AddCommand(newExecpolicyCommand(s))
	root.AddCommand(newSandboxCommand(s))
	root.AddCommand(newLoginCommands(s, os.Getenv)...)
	root.AddCommand(newModelsCommand(s))
	root.AddCommand(newRewindCommand(s))
	root.AddCommand(newFeaturesCommand(s))
	root.AddCommand(newMigrateRolloutsCommand(s))
	root.AddCommand(newArchiveCommand(s), newUnarchiveCommand(s), newDeleteCommand(s))
	root.CompletionOptions.DisableDefaultCmd = true // Codex's form instead: completion [SHELL]
	root.AddCommand(newCompletionCommand(s))
	root.AddCommand(newResumeCommand(s, runTUI), newForkCommand(s, runTUI))
	root.AddCommand(newDoctorCommand(s), newApplyCommand(s))
	root.AddCommand(newFleetCommand(s))
	groupCommands(root, s)
	markUsageErrors(root)
	return root
}

// groupCommands lists, in help, gocodex's commands first and Codex's commands it lacks
// apart (unsupported.go). It runs last so every command added above lands in a group.
func groupCommands(root *cobra.Command, s streams) {
	root.AddGroup(&cobra.Group{ID: "commands", Title: "Commands:"},
		&cobra.Group{ID: unsupportedGroup, Title: "Codex commands gocodex does not support (each says why):"})
	for _, c := range root.Commands() {
		if c.GroupID == "" {
			c.GroupID = "commands"
		}
	}
	root.AddCommand(newUnsupportedCommands(s)...)
	root.SetHelpCommandGroupID("commands")
}

// loadConfig is the configuration a one-shot command runs with: its flags over config.toml.
func loadConfig(flags *faceopts.Flags) (*config.Config, []config.Warning, error) {
	lo, err := flags.LoadOptions(os.Getenv, faceopts.FullAutoSandboxOnly)
	if err != nil {
		return nil, nil, err
	}
	return faceopts.Load(lo)
}
