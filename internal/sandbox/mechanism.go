package sandbox

import (
	"errors"
	"fmt"
)

// Mechanism names how the file-system part of the policy is enforced; seccomp is always on.
type Mechanism string

// The mechanisms, strongest first.
const (
	// MechanismLandlockNamespaces is Landlock plus a user + mount namespace that binds the
	// protected subpaths (.git, .codex) read-only.
	MechanismLandlockNamespaces Mechanism = "landlock+namespaces"
	// MechanismLandlock is Landlock alone: the protected subpaths are not enforced.
	MechanismLandlock Mechanism = "landlock"
	// MechanismNamespaces is the fallback without Landlock: a read-only bind of / with the
	// writable roots bound writable.
	MechanismNamespaces Mechanism = "namespaces"
	// MechanismNone means no confinement is possible; Command refuses.
	MechanismNone Mechanism = "none"
)

func (m Mechanism) usesLandlock() bool {
	return m == MechanismLandlock || m == MechanismLandlockNamespaces
}

func (m Mechanism) usesNamespaces() bool {
	return m == MechanismNamespaces || m == MechanismLandlockNamespaces
}

// Options turn mechanisms off (for tests, and for users whose kernel misbehaves) and name the
// binary to re-execute.
type Options struct {
	DisableLandlock       bool
	DisableUserNamespaces bool
	// Executable is the binary that acts as the helper; empty means os.Executable().
	Executable string
}

// ProbeResult says what this machine can enforce. Mechanism is the best available; Err is set
// (and Mechanism is MechanismNone) when nothing is.
type ProbeResult struct {
	LandlockABI    int
	UserNamespaces bool
	// UserNamespacesError says why user namespaces are unusable, when they are.
	UserNamespacesError string
	Mechanism           Mechanism
	Err                 error
}

// ErrNoSandbox is wrapped by the error returned when neither Landlock nor user namespaces are
// available, so callers can tell "cannot confine" from other failures.
var ErrNoSandbox = errors.New("no sandbox mechanism available")

// Message is the one-line description for the session's background event.
func (r ProbeResult) Message() string {
	switch r.Mechanism {
	case MechanismLandlockNamespaces:
		return fmt.Sprintf("Linux sandbox: Landlock ABI %d with seccomp; .git and .codex bound read-only in a mount namespace", r.LandlockABI)
	case MechanismLandlock:
		return fmt.Sprintf("Linux sandbox: Landlock ABI %d with seccomp; user namespaces unavailable (%s), so .git and .codex inside writable roots are not protected", r.LandlockABI, r.UserNamespacesError)
	case MechanismNamespaces:
		return "Linux sandbox: Landlock unavailable; using a user + mount namespace (read-only /) with seccomp"
	}
	if r.Err != nil {
		return "Linux sandbox unavailable: " + r.Err.Error()
	}
	return "Linux sandbox unavailable"
}
