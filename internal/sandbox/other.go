//go:build !linux && !darwin && !windows

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
)

// Systems with no sandbox of gocodex's (neither Linux, macOS nor Windows): sandboxed commands are
// refused rather than run unconfined, and danger-full-access runs them plainly.

// Probe reports that no mechanism exists on this system.
func Probe(ctx context.Context, opts Options) ProbeResult {
	return ProbeResult{Mechanism: MechanismNone, Err: fmt.Errorf("%w: the sandbox is implemented for Linux only, not %s; "+
		"run inside an external sandbox with --sandbox danger-full-access", ErrNoSandbox, runtime.GOOS)}
}

// Command runs danger-full-access commands plainly and refuses every other policy.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if cmd, done, err := req.unconfined(ctx); done {
		return cmd, err
	}
	return nil, Probe(ctx, req.Options).Err
}

// WriteExplanation prints that nothing is confined here.
func WriteExplanation(w io.Writer, r ProbeResult) {
	fmt.Fprintf(w, "mechanism: %s\n%s\n", r.Mechanism, r.Err)
}
