package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/usershell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// DefaultTimeout is how long a one-shot command may run when the model gives no timeout.
const DefaultTimeout = 10 * time.Second

// DefaultTruncation is the model-output budget when the catalog gives none.
var defaultTruncation = process.Tokens(10_000)

// Config is what the engine wires into the shell handlers.
type Config struct {
	// Gate decides whether and how each command runs; FullAccessOnlyGate when nil.
	Gate Gate
	// EnvPolicy is the user's shell_environment_policy.
	EnvPolicy process.EnvPolicy
	// Environ returns the parent environment; os.Environ when nil.
	Environ func() []string
	// Truncation is the model's truncation policy; Tokens(10000) when Limit is zero.
	Truncation process.TruncationPolicy
	// UserShell is the user's shell; when empty, usershell.Default picks it ($SHELL from
	// Environ when it is a shell gocodex knows; zsh on macOS, PowerShell on Windows).
	UserShell string
	// NoLoginShell forbids login shells (config allow_login_shell = false).
	NoLoginShell bool
	// DefaultTimeout applies when the model gives none; DefaultTimeout when zero.
	DefaultTimeout time.Duration
	// Intercept, when set, takes commands that are really apply_patch calls (`apply_patch
	// PATCH`, or a heredoc in `bash -lc`) before they reach the gate; handled false lets the
	// command run as usual. The engine wires it to the apply_patch tool.
	Intercept Interceptor
}

// Interceptor runs argv as a tool of its own in cwd when it recognises it. Its Output is the
// tool's own text, which each command tool wraps in its usual format.
type Interceptor func(ctx context.Context, env *tool.Env, callID, cwd string, argv []string) (res tool.Result, handled bool, err error)

// intercept offers argv to the interceptor; ok reports that it was handled.
func (c *Config) intercept(ctx context.Context, env *tool.Env, callID, cwd string, argv []string) (tool.Result, bool, error) {
	if c.Intercept == nil {
		return tool.Result{}, false, nil
	}
	return c.Intercept(ctx, env, callID, cwd, argv)
}

func (c *Config) gate() Gate {
	if c.Gate == nil {
		return FullAccessOnlyGate
	}
	return c.Gate
}

func (c *Config) truncation() process.TruncationPolicy {
	if c.Truncation.Limit <= 0 {
		return defaultTruncation
	}
	return c.Truncation
}

// TruncationPolicy is the budget the handlers apply to output for the model.
func (c *Config) TruncationPolicy() process.TruncationPolicy { return c.truncation() }

func (c *Config) timeout(ms *int64) time.Duration {
	if ms != nil && *ms > 0 {
		return time.Duration(*ms) * time.Millisecond
	}
	if c.DefaultTimeout > 0 {
		return c.DefaultTimeout
	}
	return DefaultTimeout
}

func (c *Config) environ() []string {
	if c.Environ == nil {
		return os.Environ()
	}
	return c.Environ()
}

// Shell returns the user's shell program.
func (c *Config) Shell() string {
	if c.UserShell != "" {
		return c.UserShell
	}
	shell := ""
	for _, kv := range c.environ() {
		if v, ok := strings.CutPrefix(kv, "SHELL="); ok {
			shell = v
		}
	}
	return usershell.Default(usershell.Host(func(string) string { return shell })).Path
}

// ShellArgv is how a script runs in a shell: `shell -lc script` for a login shell (when
// allowed), `shell -c script` otherwise; PowerShell and cmd take theirs (usershell.Shell.Argv).
func (c *Config) ShellArgv(shell, script string, login bool) []string {
	return usershell.ForPath(shell).Argv(script, login && !c.NoLoginShell)
}

// CommandEnv is the environment of a command run for this thread.
func (c *Config) CommandEnv(env *tool.Env, networkDisabled bool, extra map[string]string) []string {
	if !env.Sandbox.HasFullNetworkAccess() {
		networkDisabled = true
	}
	return process.BuildEnv(c.EnvPolicy, c.environ(), process.EnvOptions{
		ThreadID:        env.ThreadID,
		NetworkDisabled: networkDisabled,
		Extra:           extra,
	})
}

// ResolveWorkdir makes the model's workdir absolute against the turn's cwd.
func ResolveWorkdir(base, workdir string) string {
	if workdir == "" {
		return base
	}
	if filepath.IsAbs(workdir) {
		return filepath.Clean(workdir)
	}
	return filepath.Join(base, workdir)
}

// ParsedCommand is the display form of a command for begin/end events: the script of a
// `sh -c`/`-lc` invocation, or the argv joined.
func ParsedCommand(argv []string) []protocol.ParsedCommand {
	return []protocol.ParsedCommand{{Type: "unknown", Cmd: displayCommand(argv)}}
}

func displayCommand(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// execRequest is one one-shot command, already parsed from the model's arguments.
type execRequest struct {
	call               tool.Call
	toolName           string
	argv               []string
	cwd                string
	timeout            time.Duration
	extraEnv           map[string]string
	sandboxPermissions string
	justification      string
	prefixRule         []string
	format             func(process.Result, process.TruncationPolicy) string
}

// errText is the output for a command that could not start.
func errText(err error) string { return "execution error: " + err.Error() }

// execute asks the gate, then runs the command with begin/delta/end events around it.
func (c *Config) execute(ctx context.Context, env *tool.Env, req execRequest) (tool.Result, error) {
	start := time.Now()
	if res, ok, err := c.intercept(ctx, env, req.call.CallID, req.cwd, req.argv); ok || err != nil {
		if err != nil {
			return res, err
		}
		exit := 0
		if !res.Success {
			exit = 1
		}
		text := process.Output{Bytes: []byte(res.Output)}
		res.Output = req.format(process.Result{ExitCode: exit, Aggregated: text, Stdout: text, Duration: time.Since(start)}, c.truncation())
		return res, nil
	}
	decision, err := c.gate()(ctx, env, GateRequest{
		CallID:             req.call.CallID,
		ToolName:           req.toolName,
		Argv:               req.argv,
		Cwd:                req.cwd,
		SandboxPermissions: req.sandboxPermissions,
		Justification:      req.justification,
		PrefixRule:         req.prefixRule,
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Output: "aborted by user"}, ctx.Err()
		}
		return tool.Result{}, err
	}
	if decision.Deny != "" {
		return tool.Result{Output: decision.Deny, EndTurn: decision.EndTurn}, nil
	}
	emit := env.Emit
	if emit == nil {
		emit = func(protocol.EventMsg) {}
	}
	parsed := ParsedCommand(req.argv)
	emit(protocol.ExecCommandBeginEvent{
		CallID: req.call.CallID, TurnID: env.TurnID, Command: req.argv, Cwd: req.cwd,
		ParsedCmd: parsed, Source: protocol.SourceAgent,
	})
	result, runErr := c.runOnce(ctx, env, req, decision, emit)
	if runErr == nil && decision.Sandboxed && decision.OnDenied != nil && process.LikelySandboxDenied(result) {
		retry, ok, err := decision.OnDenied(ctx, result)
		switch {
		case err != nil:
			runErr = err
		case ok && retry.Deny != "":
			c.emitEnd(emit, env, req, parsed, result, "")
			return tool.Result{Output: retry.Deny, EndTurn: retry.EndTurn}, nil
		case ok:
			result, runErr = c.runOnce(ctx, env, req, retry, emit)
		}
	}
	if runErr != nil {
		var startErr *startError
		if errors.As(runErr, &startErr) {
			text := errText(startErr.err)
			c.emitEnd(emit, env, req, parsed, process.Result{ExitCode: -1, Stderr: process.Output{Bytes: []byte(text)}, Aggregated: process.Output{Bytes: []byte(text)}}, text)
			return tool.Result{Output: text}, nil
		}
		// Interrupted: close the begin with an end so clients never see a dangling command.
		c.emitEnd(emit, env, req, parsed, result, "")
		return tool.Result{Output: "aborted by user"}, runErr
	}
	policy := c.truncation()
	formatted := process.FormattedTruncate(result.Content(), policy)
	c.emitEnd(emit, env, req, parsed, result, formatted)
	return tool.Result{Output: req.format(result, policy), Success: result.ExitCode == 0}, nil
}

type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }

func (c *Config) runOnce(ctx context.Context, env *tool.Env, req execRequest, d Decision, emit func(protocol.EventMsg)) (process.Result, error) {
	spec := process.Spec{
		Argv:    req.argv,
		Cwd:     req.cwd,
		Env:     c.CommandEnv(env, d.NetworkDisabled, req.extraEnv),
		Spawner: d.Spawner,
		OnOutput: func(s process.Stream, chunk []byte) {
			stream := protocol.StreamStdout
			if s == process.Stderr {
				stream = protocol.StreamStderr
			}
			emit(protocol.ExecCommandOutputDeltaEvent{CallID: req.call.CallID, Stream: stream, Chunk: chunk})
		},
	}
	p, err := process.Start(ctx, spec)
	if err != nil {
		return process.Result{}, &startError{err}
	}
	return process.Wait(ctx, p, req.timeout)
}

func (c *Config) emitEnd(emit func(protocol.EventMsg), env *tool.Env, req execRequest, parsed []protocol.ParsedCommand, r process.Result, formatted string) {
	emit(protocol.ExecCommandEndEvent{
		CallID: req.call.CallID, TurnID: env.TurnID, Command: req.argv, Cwd: req.cwd,
		ParsedCmd: parsed, Source: protocol.SourceAgent,
		Stdout: r.Stdout.Text(), Stderr: r.Stderr.Text(), AggregatedOutput: r.Aggregated.Text(),
		ExitCode: r.ExitCode, Duration: protocol.Duration(r.Duration), FormattedOutput: formatted,
	})
}
