//go:build !linux && !darwin && !windows

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
)

// Only Linux has a sandbox here; elsewhere sandboxed commands are refused rather than run
// unconfined, and danger-full-access runs them plainly.

// LandlockABI is 0: Landlock is Linux-only.
func LandlockABI() int { return 0 }

// Probe reports that no mechanism exists on this system.
func Probe(ctx context.Context, opts Options) ProbeResult {
	return ProbeResult{Mechanism: MechanismNone, Err: fmt.Errorf("%w: the sandbox is implemented for Linux only, not %s; "+
		"run inside an external sandbox with --sandbox danger-full-access", ErrNoSandbox, runtime.GOOS)}
}

// Command runs danger-full-access commands plainly and refuses every other policy.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if !req.Policy.HasFullDiskWriteAccess() {
		return nil, Probe(ctx, req.Options).Err
	}
	cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	return cmd, nil
}

// HelperMain always fails: there is nothing to confine with.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "%s: the sandbox helper only runs on Linux\n", HelperArg0)
	return 1
}

// WriteExplanation prints that nothing is confined here.
func WriteExplanation(w io.Writer, r ProbeResult) {
	fmt.Fprintf(w, "mechanism: %s\n%s\n", r.Mechanism, r.Err)
}
