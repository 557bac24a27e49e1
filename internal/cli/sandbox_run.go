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

// SandboxRun is what `gocodex sandbox linux|macos|windows [--full-auto] [-c …] -- CMD…`
// resolved: the command, the policy from config and flags, and the streams to run it on.
type SandboxRun struct {
	// Name is the command as the person typed it, for messages ("gocodex sandbox macos");
	// "gocodex sandbox" when empty.
	Name   string
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
	name := c.Name
	if name == "" {
		name = "gocodex sandbox"
	}
	if len(c.Args) == 0 {
		fmt.Fprintf(c.Stderr, "%s: no command given (usage: %s [--full-auto] [-c key=value]... -- COMMAND...)\n", name, name)
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
		fmt.Fprintf(c.Stderr, "%s: %v\n", name, err)
		return 1
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	err = cmd.Run()
	sandbox.Reclaim(cmd)
	return exitStatus(err, c.Stderr, name, c.Args[0])
}

func exitStatus(err error, stderr io.Writer, name, program string) int {
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
	fmt.Fprintf(stderr, "%s: %s: %v\n", name, program, err)
	if errors.Is(err, exec.ErrNotFound) {
		return 127
	}
	return 1
}

// sandboxPlatforms are the `gocodex sandbox` subcommands, each the sandbox of one system
// (as Codex's `sandbox linux`, `sandbox macos` and `sandbox windows`), by GOOS.
var sandboxPlatforms = []struct{ sub, goos, system string }{
	{"linux", "linux", "Linux"},
	{"macos", "darwin", "macOS"},
	{"windows", "windows", "Windows"},
}

// CheckSandboxPlatform refuses `gocodex sandbox SUB` on a system whose sandbox SUB is not
// (sandbox macos on Linux), naming the subcommand that is; goos is runtime.GOOS.
func CheckSandboxPlatform(sub, goos string) error {
	want, here := "", ""
	for _, p := range sandboxPlatforms {
		if p.sub == sub {
			want = p.goos
			if want == goos {
				return nil
			}
			sub = p.system
		}
		if p.goos == goos {
			here = "; use `gocodex sandbox " + p.sub + "` here"
		}
	}
	if want == "" {
		return fmt.Errorf("unknown sandbox %q", sub)
	}
	return fmt.Errorf("the %s sandbox only exists on %s, not on %s%s", sub, sub, goos, here)
}
