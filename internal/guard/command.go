package guard

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// One-off commands: a command a client runs outside any thread (the app-server's
// command/exec), under the sandbox policy it names. No approval is asked (the client is
// the person); the sandbox is applied here as for a thread's commands.

// ErrNotTTY is Command.Resize's error for a command started without a terminal.
var ErrNotTTY = process.ErrNotTTY

// Commands runs one-off commands for one client; the machine is probed once, on the first
// confined command.
type Commands struct {
	sandbox sandbox.Options

	mu    sync.Mutex
	probe *sandbox.ProbeResult
}

// NewCommands returns a runner using the sandbox options of the host.
func NewCommands(opts sandbox.Options) *Commands { return &Commands{sandbox: opts} }

// CommandRequest is one command to start.
type CommandRequest struct {
	Argv []string
	Cwd  string
	// EnvPolicy, when set, builds the environment from this process's ([shell_environment_policy]);
	// otherwise the command inherits it whole. Env is applied after: a nil value unsets.
	EnvPolicy *process.EnvPolicy
	Env       map[string]*string
	// Policy confines the command; nil or danger-full-access runs it unconfined.
	Policy *protocol.SandboxPolicy
	// TTY runs the command on a terminal of Rows x Cols (24x80 when zero).
	TTY        bool
	Rows, Cols uint16
	// Stdin keeps stdin open for Command.Write.
	Stdin bool
	// RetainLimit caps the output kept of each stream (process.MaxRetainedOutput when zero).
	RetainLimit int
	// OnOutput, when set, receives every chunk as it is read (stderr says which stream).
	OnOutput func(stderr bool, chunk []byte)
}

// Command is a started one-off command.
type Command struct{ p *process.Process }

// CommandResult is how a command ended and what it printed.
type CommandResult struct {
	ExitCode int
	// Stdout and Stderr are the streams apart; Aggregated is both in order (a terminal's
	// output).
	Stdout, Stderr, Aggregated string
}

// Start starts a command; ctx ending kills it.
func (cs *Commands) Start(ctx context.Context, req CommandRequest) (*Command, error) {
	env := os.Environ()
	if req.EnvPolicy != nil {
		env = process.BuildEnv(*req.EnvPolicy, env, process.EnvOptions{})
	}
	for k, v := range req.Env {
		env = setEnv(env, k, v)
	}
	spec := process.Spec{Argv: req.Argv, Cwd: req.Cwd, Env: env, TTY: req.TTY, Stdin: req.Stdin,
		Rows: req.Rows, Cols: req.Cols, RetainLimit: req.RetainLimit, Spawner: cs.spawner(ctx, req.Policy, req.Cwd)}
	if req.OnOutput != nil {
		spec.MaxChunks = -1
		spec.OnOutput = func(st process.Stream, b []byte) { req.OnOutput(st == process.Stderr, b) }
	}
	p, err := process.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &Command{p: p}, nil
}

// spawner confines a command to policy; full access (or no policy) runs it as is.
func (cs *Commands) spawner(ctx context.Context, policy *protocol.SandboxPolicy, cwd string) process.Spawner {
	if policy == nil || policy.EffectiveMode() == protocol.SandboxDangerFullAccess {
		return nil
	}
	cs.mu.Lock()
	if cs.probe == nil {
		pr := sandbox.Probe(ctx, cs.sandbox)
		cs.probe = &pr
	}
	probe := cs.probe
	cs.mu.Unlock()
	return sandbox.Spawner(*policy, cwd, probe, cs.sandbox)
}

// Wait waits for the command to end, killing it after timeout (none when zero).
func (c *Command) Wait(ctx context.Context, timeout time.Duration) (CommandResult, error) {
	res, err := process.Wait(ctx, c.p, timeout)
	if err != nil {
		return CommandResult{}, err
	}
	return CommandResult{ExitCode: res.ExitCode, Stdout: res.Stdout.Text(), Stderr: res.Stderr.Text(), Aggregated: res.Aggregated.Text()}, nil
}

// Write writes to the command's stdin; nil closes it.
func (c *Command) Write(b []byte) error { return c.p.Write(b) }

// Resize resizes the command's terminal (ErrNotTTY without one).
func (c *Command) Resize(rows, cols uint16) error { return c.p.Resize(rows, cols) }

// Kill ends the command and its children.
func (c *Command) Kill() { c.p.Kill() }

// setEnv sets (v nil: unsets) k in an os.Environ-form list.
func setEnv(env []string, k string, v *string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(k) && kv[:len(k)] == k && kv[len(k)] == '=' {
			continue
		}
		out = append(out, kv)
	}
	if v != nil {
		out = append(out, k+"="+*v)
	}
	return out
}
