//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// LandlockABI is 0: Landlock is Linux-only.
func LandlockABI() int { return 0 }

// Probe finds /usr/bin/sandbox-exec, the Seatbelt front end every macOS release ships.
func Probe(context.Context, Options) ProbeResult {
	fi, err := os.Stat(SeatbeltExecutable)
	if err == nil && (fi.IsDir() || fi.Mode().Perm()&0o111 == 0) {
		err = errors.New("not an executable file")
	}
	if err != nil {
		return ProbeResult{Mechanism: MechanismNone, Err: fmt.Errorf("%w: %s: %v", ErrNoSandbox, SeatbeltExecutable, err)}
	}
	return ProbeResult{Mechanism: MechanismSeatbelt}
}

// Command returns the command ready to start: for danger-full-access the plain command, for
// every other policy the command under sandbox-exec with the policy's profile. The command
// is told it runs under Seatbelt (CODEX_SANDBOX=seatbelt), as Codex tells it.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if req.Policy.HasFullDiskWriteAccess() {
		cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
		cmd.Dir, cmd.Env = req.Cwd, req.Env
		return cmd, nil
	}
	probe := req.Probe
	if probe == nil {
		r := Probe(ctx, req.Options)
		probe = &r
	}
	if probe.Err != nil {
		return nil, probe.Err
	}
	policyCwd := req.PolicyCwd
	if policyCwd == "" {
		policyCwd = req.Cwd
	}
	profile := NewSeatbeltProfile(req.Policy, policyCwd, envLookup(req.Env))
	cmd := exec.CommandContext(ctx, SeatbeltExecutable, profile.Args(req.Argv)...)
	cmd.Dir = req.Cwd
	env := req.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], SeatbeltEnv)
	return cmd, nil
}

// HelperMain always fails: macOS needs no helper (sandbox-exec confines the command).
func HelperMain([]string) int {
	fmt.Fprintf(os.Stderr, "%s: the sandbox helper only runs on Linux\n", HelperArg0)
	return 1
}

// WriteExplanation prints the probe and what Seatbelt enforces.
func WriteExplanation(w io.Writer, r ProbeResult) { writeSeatbeltExplanation(w, r) }
