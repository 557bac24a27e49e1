package app

import (
	"context"
	"time"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/guard"
	"github.com/gocodex/gocodex/protocol"
)

// One-off commands: a command a client runs outside any thread (the app-server's
// command/exec). The host runs it through internal/guard, under the sandbox of its options
// and the environment policy of the configuration, so a face says only what to run.

// ErrNotTTY is OneOffCommand.Resize's error for a command started without a terminal.
var ErrNotTTY = guard.ErrNotTTY

// OneOffCommands runs one client's one-off commands; the machine is probed once, on the
// first confined command.
type OneOffCommands struct{ cs *guard.Commands }

// NewOneOffCommands returns a runner with the sandbox options of opts.
func NewOneOffCommands(opts Options) *OneOffCommands {
	return &OneOffCommands{cs: guard.NewCommands(opts.Sandbox)}
}

// OneOffRequest is one command to start.
type OneOffRequest struct {
	Argv []string
	Cwd  string
	// Config, when set, builds the environment from this process's by its
	// [shell_environment_policy]; otherwise the command inherits it whole. Env is applied
	// after: a nil value unsets.
	Config *config.Config
	Env    map[string]*string
	// Policy confines the command; nil or danger-full-access runs it unconfined.
	Policy *protocol.SandboxPolicy
	// TTY runs the command on a terminal of Rows x Cols (24x80 when zero).
	TTY        bool
	Rows, Cols uint16
	// Stdin keeps stdin open for OneOffCommand.Write.
	Stdin bool
	// RetainLimit caps the output kept of each stream (a default when zero).
	RetainLimit int
	// OnOutput, when set, receives every chunk as it is read (stderr says which stream).
	OnOutput func(stderr bool, chunk []byte)
}

// OneOffCommand is a started one-off command.
type OneOffCommand struct{ c *guard.Command }

// OneOffResult is how a command ended and what it printed: Stdout and Stderr apart,
// Aggregated both in order (a terminal's output).
type OneOffResult struct {
	ExitCode                   int
	Stdout, Stderr, Aggregated string
}

// Start starts a command; ctx ending kills it.
func (o *OneOffCommands) Start(ctx context.Context, req OneOffRequest) (*OneOffCommand, error) {
	gr := guard.CommandRequest{Argv: req.Argv, Cwd: req.Cwd, Env: req.Env, Policy: req.Policy, TTY: req.TTY,
		Rows: req.Rows, Cols: req.Cols, Stdin: req.Stdin, RetainLimit: req.RetainLimit, OnOutput: req.OnOutput}
	if req.Config != nil {
		gr.EnvPolicy = &req.Config.ShellEnvironmentPolicy
	}
	c, err := o.cs.Start(ctx, gr)
	if err != nil {
		return nil, err
	}
	return &OneOffCommand{c: c}, nil
}

// Wait waits for the command to end, killing it after timeout (none when zero).
func (c *OneOffCommand) Wait(ctx context.Context, timeout time.Duration) (OneOffResult, error) {
	res, err := c.c.Wait(ctx, timeout)
	return OneOffResult(res), err
}

// Write writes to the command's stdin; nil closes it.
func (c *OneOffCommand) Write(b []byte) error { return c.c.Write(b) }

// Resize resizes the command's terminal (ErrNotTTY without one).
func (c *OneOffCommand) Resize(rows, cols uint16) error { return c.c.Resize(rows, cols) }

// Kill ends the command and its children.
func (c *OneOffCommand) Kill() { c.c.Kill() }
