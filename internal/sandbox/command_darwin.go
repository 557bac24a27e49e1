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
	if cmd, done, err := req.unconfined(ctx); done {
		return cmd, err
	}
	probe := req.probe(ctx)
	if probe.Err != nil {
		return nil, probe.Err
	}
	policyCwd := req.policyCwd()
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

// WriteExplanation prints the probe and what Seatbelt enforces.
func WriteExplanation(w io.Writer, r ProbeResult) { writeSeatbeltExplanation(w, r) }
