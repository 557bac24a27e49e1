package process

import "github.com/gocodex/gocodex/internal/sandbox"

// LikelySandboxDenied guesses whether a sandboxed command failed because the sandbox
// refused it, so the engine can offer to rerun it unsandboxed. The rules are the sandbox's
// (sandbox.LikelyDenied); a timeout is never a denial.
func LikelySandboxDenied(r Result) bool {
	if r.TimedOut {
		return false
	}
	// The aggregated stream also catches a marker split across stdout and stderr chunks.
	return sandbox.LikelyDenied(r.ExitCode, r.Stdout.Text(), r.Stderr.Text()+"\n"+r.Aggregated.Text())
}
