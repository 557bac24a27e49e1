// Package cli holds the command-line front ends of the edge tools (execpolicy check, the
// sandbox, mcp list/get/add): argument parsing and output formats live here, not in the edge
// packages, which stay libraries.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// SandboxRun is what `gocodex sandbox linux [--full-auto] [-c …] -- CMD…` resolved: the
// command, the policy from config and flags, and the streams to run it on.
type SandboxRun struct {
	Args   []string
	Policy protocol.SandboxPolicy
	Cwd    string
	// Env is the command's environment (nil: this process's; the caller applies
	// shell_environment_policy);
	// CODEX_SANDBOX_NETWORK_DISABLED=1 is added here when the network is restricted.
	Env     []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Options sandbox.Options
}

// RunSandbox runs one command under the policy, the way the agent would, and returns its exit
// status (128+n when a signal ended it) so a person can see what the agent would see.
func RunSandbox(ctx context.Context, c SandboxRun) int {
	if len(c.Args) == 0 {
		fmt.Fprintln(c.Stderr, "gocodex sandbox linux: no command given (usage: gocodex sandbox linux [--full-auto] [-c key=value]... -- COMMAND...)")
		return 2
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	if !c.Policy.HasFullNetworkAccess() {
		env = append(append([]string(nil), env...), "CODEX_SANDBOX_NETWORK_DISABLED=1")
	}
	cmd, err := sandbox.Command(ctx, sandbox.Request{Policy: c.Policy, Cwd: c.Cwd, Argv: c.Args, Env: env, Options: c.Options})
	if err != nil {
		fmt.Fprintf(c.Stderr, "gocodex sandbox linux: %v\n", err)
		return 1
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	err = cmd.Run()
	sandbox.Reclaim(cmd)
	return exitStatus(err, c.Stderr, c.Args[0])
}

func exitStatus(err error, stderr io.Writer, name string) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "gocodex sandbox linux: %s: %v\n", name, err)
	if errors.Is(err, exec.ErrNotFound) {
		return 127
	}
	return 1
}
