package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// Mechanism names which kernel mechanisms confine a command besides the ones that are always
// on (seccomp, no_new_privs, a session of its own, no capabilities).
type Mechanism string

// The mechanisms, strongest first.
const (
	// MechanismLandlockNamespaces is Landlock plus user, mount and PID namespaces: a
	// read-only view of / with the writable roots bound writable and the protected names bound
	// read-only, a private /dev and /proc, and the helper as init of the command's PID
	// namespace.
	MechanismLandlockNamespaces Mechanism = "landlock+namespaces"
	// MechanismLandlock is Landlock alone, where user namespaces are unavailable (an
	// unprivileged container): see Explain for what it does not enforce.
	MechanismLandlock Mechanism = "landlock"
	// MechanismNamespaces is the namespaces without Landlock.
	MechanismNamespaces Mechanism = "namespaces"
	// MechanismSeatbelt is macOS's sandbox: commands run under /usr/bin/sandbox-exec with a
	// profile built for the policy (NewSeatbeltProfile).
	MechanismSeatbelt Mechanism = "seatbelt"
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
	// CodexHome is the CODEX_HOME whose credential files confined commands must not read;
	// empty means $CODEX_HOME, else ~/.codex.
	CodexHome string
}

// Binary is the executable the sandbox re-executes as its helper (opts.Executable, or this
// process's own binary): the same binary is every embedded program, so a caller that runs
// one of them inside the sandbox (the apply_patch tool) runs this.
func Binary(opts Options) (string, error) {
	if opts.Executable != "" {
		return opts.Executable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable for the sandbox helper: %w", err)
	}
	return exe, nil
}

// landlockResolveUnixABI is the first Landlock ABI with LANDLOCK_ACCESS_FS_RESOLVE_UNIX:
// connect and sendmsg to a pathname unix socket need the right on the socket's place. (Here,
// not in landlock_linux.go, because Explain's wording depends on it on every platform.)
const landlockResolveUnixABI = 9

// ProbeResult says what this machine can enforce. Mechanism is the best available; Err is set
// (and Mechanism is MechanismNone) when nothing is.
type ProbeResult struct {
	LandlockABI int
	// LandlockDisabled is set when Options turned Landlock off.
	LandlockDisabled bool
	UserNamespaces   bool
	// UserNamespacesError says why user namespaces are unusable, when they are.
	UserNamespacesError string
	Mechanism           Mechanism
	Err                 error
}

// ErrNoSandbox is wrapped by the error returned when neither Landlock nor user namespaces are
// available, so callers can tell "cannot confine" from other failures.
var ErrNoSandbox = errors.New("no sandbox mechanism available")

// Message is the one-line description for the session's background event; it names what is
// missing whenever the sandbox is weaker than the strongest one.
func (r ProbeResult) Message() string {
	switch r.Mechanism {
	case MechanismLandlockNamespaces:
		return fmt.Sprintf("Linux sandbox: Landlock ABI %d, user/mount/PID namespaces (read-only /), seccomp", r.LandlockABI)
	case MechanismLandlock:
		return fmt.Sprintf("Linux sandbox: Landlock ABI %d with seccomp; user namespaces unavailable (%s), so metadata outside the writable roots, protected names (.git, .codex, .agents, .aws), CODEX_HOME's credential files (readable), processes outside (renice) and daemons that outlive a command are not confined", r.LandlockABI, r.UserNamespacesError)
	case MechanismNamespaces:
		return "Linux sandbox: Landlock unavailable; user/mount/PID/network namespaces (read-only /) with seccomp"
	case MechanismSeatbelt:
		return seatbeltMessage
	}
	if r.Err != nil {
		return "Linux sandbox unavailable: " + r.Err.Error()
	}
	return "Linux sandbox unavailable"
}
