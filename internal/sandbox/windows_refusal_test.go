package sandbox

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// TestWindowsRefusal: on Windows a sandboxed policy is refused with a message naming the
// policy and both ways forward; danger-full-access runs. The words are platform-neutral code,
// checked here on Linux; command_windows.go only calls them.
func TestWindowsRefusal(t *testing.T) {
	for _, policy := range []protocol.SandboxPolicy{
		protocol.NewReadOnlyPolicy(),
		protocol.NewWorkspaceWritePolicy(),
		{Mode: protocol.SandboxWorkspaceWrite, NetworkAccess: true},
	} {
		err := windowsRefused(policy)
		if err == nil {
			t.Fatalf("%s: not refused", policy)
		}
		msg := err.Error()
		for _, want := range []string{
			"the " + policy.String() + " sandbox policy cannot be enforced on Windows",
			"does not run a command unconfined",
			"`--sandbox danger-full-access -a untrusted`",
			"WSL",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: message lacks %q:\n%s", policy, want, msg)
			}
		}
		if !errors.Is(err, ErrNoSandbox) {
			t.Errorf("%s: not ErrNoSandbox", policy)
		}
		// The engine's probe names the policy of the command it refuses.
		probe := ProbeResult{Mechanism: MechanismNone, Err: &WindowsRefusal{}}
		if got := probe.ErrFor(policy).Error(); got != msg {
			t.Errorf("ErrFor(%s) = %q, want %q", policy, got, msg)
		}
	}
	if err := windowsRefused(protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}); err != nil {
		t.Errorf("danger-full-access refused: %v", err)
	}
	// Elsewhere ErrFor is the probe's own error.
	other := errors.New("no landlock")
	if got := (ProbeResult{Err: other}).ErrFor(protocol.NewReadOnlyPolicy()); got != other {
		t.Errorf("ErrFor on Linux = %v", got)
	}
}

// TestWindowsExplanation: `sandbox --explain` on Windows says the same as the refusal.
func TestWindowsExplanation(t *testing.T) {
	var b bytes.Buffer
	writeWindowsExplanation(&b)
	for _, want := range []string{"mechanism: none", "inactive sandbox", "a sandbox policy cannot be enforced on Windows", "`--sandbox danger-full-access -a untrusted`", "WSL"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSeatbeltExplanation: `sandbox --explain` on macOS names the mechanism and what it
// enforces, or why it is missing.
func TestSeatbeltExplanation(t *testing.T) {
	var b bytes.Buffer
	writeSeatbeltExplanation(&b, ProbeResult{Mechanism: MechanismSeatbelt})
	for _, want := range []string{"mechanism: seatbelt", SeatbeltExecutable, "active   protected names", ".git, .codex, .agents and .aws", "network"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	writeSeatbeltExplanation(&b, ProbeResult{Mechanism: MechanismNone, Err: errors.New("/usr/bin/sandbox-exec: no such file")})
	if !strings.Contains(b.String(), "inactive seatbelt") || !strings.Contains(b.String(), "no such file") {
		t.Errorf("a missing sandbox-exec is not explained:\n%s", b.String())
	}
}
