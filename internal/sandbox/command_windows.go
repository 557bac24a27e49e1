//go:build windows

package sandbox

import (
	"context"
	"io"
	"os/exec"
)

// Probe reports that Windows has no sandbox mechanism gocodex can apply.
func Probe(context.Context, Options) ProbeResult {
	return ProbeResult{Mechanism: MechanismNone, Err: &WindowsRefusal{}}
}

// Command runs danger-full-access commands plainly and refuses every other policy with a
// WindowsRefusal naming it.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if cmd, done, err := req.unconfined(ctx); done {
		return cmd, err
	}
	return nil, windowsRefused(req.Policy)
}

// WriteExplanation prints why nothing is confined on Windows, and the choices.
func WriteExplanation(w io.Writer, _ ProbeResult) { writeWindowsExplanation(w) }
