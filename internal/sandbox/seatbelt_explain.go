package sandbox

import (
	"fmt"
	"io"
)

// seatbeltMessage is the session's first event on macOS.
const seatbeltMessage = "macOS sandbox: Seatbelt (" + SeatbeltExecutable + ") with a profile built for the policy"

// seatbeltGuarantees is what the macOS sandbox does for a confined command.
var seatbeltGuarantees = []struct{ name, detail string }{
	{"seatbelt", "every command runs under " + SeatbeltExecutable + " (by its absolute path) with a profile gocodex builds for the policy; denied unless allowed"},
	{"files", "read everywhere; written only beneath the writable roots (workspace-write: the project, writable_roots, /tmp and TMPDIR, by their real paths) and /dev/null and the command's terminal; read-only writes nowhere else"},
	{"protected names", ".git, .codex, .agents and .aws in each writable root stay read-only, even before they exist; no case variant of them (.GIT) is written beneath a root"},
	{"network", "denied unless the policy allows it (workspace-write with network_access = true)"},
	{"processes", "signals and process inspection reach only processes in the same sandbox; everything a command starts inherits the profile"},
}

// writeSeatbeltExplanation prints the macOS probe for `gocodex sandbox --explain`.
func writeSeatbeltExplanation(w io.Writer, r ProbeResult) {
	fmt.Fprintf(w, "mechanism: %s\n%s\n\n", r.Mechanism, r.Message())
	if r.Err != nil {
		fmt.Fprintf(w, "inactive %-18s %v\n", "seatbelt", r.Err)
		return
	}
	for _, g := range seatbeltGuarantees {
		fmt.Fprintf(w, "active   %-18s %s\n", g.name, g.detail)
	}
}
