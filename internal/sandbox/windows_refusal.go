package sandbox

import (
	"errors"
	"fmt"
	"io"

	"github.com/gocodex/gocodex/protocol"
)

// WindowsRefusal is the error that stops a sandboxed command on Windows. gocodex has no
// mechanism there that enforces a policy (Codex 0.169's restricted-token sandbox is
// experimental), so a command under any policy but danger-full-access is refused, naming
// the policy and the ways forward, and never run unconfined.
type WindowsRefusal struct {
	// Policy is the policy that could not be enforced; the zero value words the message
	// for no policy in particular (the probe, `sandbox --explain`).
	Policy *protocol.SandboxPolicy
}

func (e *WindowsRefusal) Error() string {
	what := "a sandbox policy"
	if e.Policy != nil {
		what = "the " + e.Policy.String() + " sandbox policy"
	}
	return fmt.Sprintf("%s cannot be enforced on Windows: gocodex has no Windows sandbox, and it does not run a "+
		"command unconfined in its place. Choose one: approve every command yourself and run them unsandboxed "+
		"(`--sandbox danger-full-access -a untrusted`), or run gocodex inside WSL, where the Linux sandbox applies", what)
}

// Is makes errors.Is(err, ErrNoSandbox) true.
func (e *WindowsRefusal) Is(target error) bool { return target == ErrNoSandbox }

// windowsRefused is what Command does on Windows: danger-full-access runs plainly (ok),
// every other policy is refused.
func windowsRefused(policy protocol.SandboxPolicy) error {
	if policy.HasFullDiskWriteAccess() {
		return nil
	}
	return &WindowsRefusal{Policy: &policy}
}

// writeWindowsExplanation prints `gocodex sandbox --explain` on Windows.
func writeWindowsExplanation(w io.Writer) {
	fmt.Fprintf(w, "mechanism: %s\nWindows: no sandbox\n\n", MechanismNone)
	fmt.Fprintf(w, "inactive %-18s %s\n", "sandbox", (&WindowsRefusal{}).Error())
	fmt.Fprintf(w, "active   %-18s %s\n", "danger-full-access", "commands run unconfined, as the policy says")
}

// ErrFor is the probe's error for a command under policy: on Windows the refusal names the
// policy; elsewhere it is Err as it is.
func (r ProbeResult) ErrFor(policy protocol.SandboxPolicy) error {
	var refusal *WindowsRefusal
	if errors.As(r.Err, &refusal) {
		return &WindowsRefusal{Policy: &policy}
	}
	return r.Err
}
