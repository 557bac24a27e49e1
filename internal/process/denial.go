package process

import (
	"strings"
	"syscall"
)

// denialHints are output fragments that suggest the sandbox, not the command, failed.
var denialHints = []string{
	"operation not permitted",
	"permission denied",
	"read-only file system",
	"seccomp",
	"sandbox",
	"landlock",
	"failed to write file",
}

// LikelySandboxDenied guesses whether a sandboxed command failed because the sandbox
// refused it, so the engine can offer to rerun it unsandboxed. Only meaningful for a
// sandboxed run; successful runs are never denials.
func LikelySandboxDenied(r Result) bool {
	if r.ExitCode == 0 || r.TimedOut {
		return false
	}
	for _, text := range []string{r.Stdout.Text(), r.Stderr.Text(), r.Aggregated.Text()} {
		lower := strings.ToLower(text)
		for _, hint := range denialHints {
			if strings.Contains(lower, hint) {
				return true
			}
		}
	}
	switch r.ExitCode {
	case 2, 126, 127: // usage errors and command-not-found are the command's own failures
		return false
	}
	// seccomp's kill action ends the process with SIGSYS.
	return r.ExitCode == 128+int(syscall.SIGSYS)
}
