package sandbox

import "strings"

// denialMarkers are the phrases (lowercase) that mark a failed sandboxed command as probably
// blocked by the sandbox rather than failing on its own (Codex's is_likely_sandbox_denied).
var denialMarkers = []string{
	"operation not permitted",
	"permission denied",
	"read-only file system",
	"seccomp",
	"sandbox",
	"landlock",
	"failed to write file",
}

const sigsys = 31

// LikelyDenied reports whether a command that ran in the sandbox and exited with exitCode
// looks like the sandbox stopped it, so the engine can offer to retry it unsandboxed. It is
// only meaningful for sandboxed runs.
func LikelyDenied(exitCode int, stdout, stderr string) bool {
	if exitCode == 0 {
		return false
	}
	for _, text := range []string{stdout, stderr} {
		lower := strings.ToLower(text)
		for _, m := range denialMarkers {
			if strings.Contains(lower, m) {
				return true
			}
		}
	}
	switch exitCode {
	case 2, 126, 127:
		// Usage errors, not-executable and not-found are the command's own failures.
		return false
	case 128 + sigsys:
		// A seccomp kill surfaces as SIGSYS.
		return true
	}
	return false
}
