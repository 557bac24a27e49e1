package shell

import (
	"context"
	"time"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/usershell"
	"github.com/gocodex/gocodex/tool"
)

// UserShellTimeout bounds a command the person typed (the `!cmd` of a UI) when they give no
// timeout: an hour, Codex's default.
const UserShellTimeout = time.Hour

// UserShellArgv is how the person's own command runs: as a script of their login shell.
// allow_login_shell = false governs the model's commands only; Codex 0.169 runs the person's
// with -lc regardless.
func (c *Config) UserShellArgv(command string) []string {
	return usershell.ForPath(c.Shell()).Argv(command, true)
}

// RunUserShell runs the person's own command in cwd. It is theirs, not the model's, so no
// gate, sandbox or approval applies (Codex 0.169 runs it with full access); the environment
// is the thread's. The aggregate is stdout followed by stderr, as Codex reports it for these
// commands. ctx ending kills the process group and returns ctx's error; so does the timeout
// (UserShellTimeout when <= 0), which reports TimedOut with exit code 124.
func (c *Config) RunUserShell(ctx context.Context, threadID string, argv []string, cwd string, timeout time.Duration, onOutput func(stderr bool, chunk []byte)) (tool.UserShellResult, error) {
	if timeout <= 0 {
		timeout = UserShellTimeout
	}
	spec := process.Spec{
		Argv: argv,
		Cwd:  cwd,
		Env:  process.BuildEnv(c.EnvPolicy, c.environ(), process.EnvOptions{ThreadID: threadID}),
	}
	if onOutput != nil {
		spec.OnOutput = func(s process.Stream, b []byte) { onOutput(s == process.Stderr, b) }
	}
	res, err := process.Run(ctx, spec, timeout)
	if err != nil {
		return tool.UserShellResult{}, err
	}
	agg := make([]byte, 0, len(res.Stdout.Bytes)+len(res.Stderr.Bytes))
	agg = append(append(agg, res.Stdout.Bytes...), res.Stderr.Bytes...)
	res.Aggregated = process.Output{Bytes: agg, Dropped: res.Stdout.Dropped + res.Stderr.Dropped}
	return tool.UserShellResult{
		ExitCode:    res.ExitCode,
		Stdout:      res.Stdout.Text(),
		Stderr:      res.Stderr.Text(),
		Aggregated:  res.Aggregated.Text(),
		Duration:    res.Duration,
		TimedOut:    res.TimedOut,
		ModelOutput: process.FormattedTruncate(res.Content(), c.TruncationPolicy()),
	}, nil
}
