//go:build windows

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

// Probe reports that Windows has no sandbox mechanism gocodex can apply.
func Probe(context.Context, Options) ProbeResult {
	return ProbeResult{Mechanism: MechanismNone, Err: &WindowsRefusal{}}
}

// Command runs danger-full-access commands plainly and refuses every other policy with a
// WindowsRefusal naming it.
func Command(ctx context.Context, req Request) (*exec.Cmd, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if err := windowsRefused(req.Policy); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	return cmd, nil
}

// HelperMain always fails: Windows has no sandbox helper.
func HelperMain([]string) int {
	fmt.Fprintf(os.Stderr, "%s: the sandbox helper only runs on Linux\n", HelperArg0)
	return 1
}

// WriteExplanation prints why nothing is confined on Windows, and the choices.
func WriteExplanation(w io.Writer, _ ProbeResult) { writeWindowsExplanation(w) }
