//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"
)

// Guarantee is one mechanism and what it does for a confined command on this machine.
type Guarantee struct {
	Mechanism string
	Active    bool
	// Detail says what it enforces, or what goes unenforced and why when it is inactive.
	Detail string
}

// Explain lists every mechanism the sandbox would use on this machine, active or not, for
// `gocodex sandbox --explain`. uid is the user the commands run as.
func (r ProbeResult) Explain(uid int) []Guarantee {
	ns := r.Mechanism.usesNamespaces()
	ll := r.Mechanism.usesLandlock()
	scoped := ll && r.LandlockABI >= landlockScopeABI
	g := []Guarantee{
		{"seccomp", r.Mechanism != MechanismNone, "ptrace, io_uring, kernel keyrings and the TIOCSTI/TIOCLINUX terminal ioctls denied; with the network restricted, no socket but AF_UNIX and no connect, bind, listen, or sendto to an address"},
		{"no_new_privs", r.Mechanism != MechanismNone, "setuid and file capabilities grant nothing"},
		{"new session", r.Mechanism != MechanismNone, "no controlling terminal: nothing typed into the terminal the command was started from"},
	}
	switch {
	case ll:
		g = append(g, Guarantee{"landlock", true, fmt.Sprintf("ABI %d: files written only beneath the writable roots, /dev/null and the command's own terminal; no ptrace of processes outside", r.LandlockABI)})
	default:
		g = append(g, Guarantee{"landlock", false, landlockMissing(Options{DisableLandlock: r.LandlockDisabled})})
	}
	switch {
	case scoped:
		g = append(g, Guarantee{"landlock scoping", true, "signals, and with the network restricted abstract unix sockets, reach only the sandbox's own processes"})
	case ns:
		g = append(g, Guarantee{"landlock scoping", false, fmt.Sprintf("needs Landlock ABI %d (have %d); the PID and network namespaces stand in", landlockScopeABI, r.LandlockABI)})
	default:
		g = append(g, Guarantee{"landlock scoping", false, fmt.Sprintf("needs Landlock ABI %d (have %d): signals and abstract unix sockets reach the user's other processes", landlockScopeABI, r.LandlockABI)})
	}
	if ns {
		netns := Guarantee{"network namespace", true, "used when the network is restricted: abstract unix sockets and the host's loopback out of reach"}
		if scoped {
			netns = Guarantee{"network namespace", false, "not needed: Landlock scoping keeps abstract sockets apart and seccomp keeps IP sockets closed"}
		}
		g = append(g,
			Guarantee{"user namespace", true, "the command's capabilities count only inside it"},
			Guarantee{"mount namespace", true, "/ read-only and nosuid (no chmod, chown, utime, xattr or chattr outside the roots), writable roots bound writable, .git .codex .agents .aws bound read-only even before they exist, a private /dev (no other terminals, no disks) and /proc with /proc/sys read-only"},
			Guarantee{"PID namespace", true, "signals and renice reach no process outside; whatever the command starts ends with it"},
			netns,
		)
	} else {
		why := r.UserNamespacesError
		if why == "" {
			why = "unavailable"
		}
		g = append(g,
			Guarantee{"user namespace", false, why},
			Guarantee{"mount namespace", false, "metadata (chmod, chown, utime, xattr) of the user's files outside the roots, and .git .codex .agents .aws inside them, are not protected"},
			Guarantee{"PID namespace", false, "renice reaches the user's other processes, and daemons a command starts outlive it"},
			Guarantee{"network namespace", false, "user namespaces unavailable"},
		)
	}
	g = append(g, r.hardening(ns)...)
	caps := "none left in any set, the bounding set included"
	capsActive := r.Mechanism != MechanismNone
	if !ns && uid != 0 {
		caps = "effective, permitted, inheritable and ambient sets empty; the bounding set stays (emptying it needs CAP_SETPCAP) and grants nothing under no_new_privs"
	}
	g = append(g, Guarantee{"capabilities", capsActive, caps})
	return g
}

// hardening lists what the sandbox adds to Codex's: setuid refusal, nosuid roots, placeholders
// that survive concurrency and crashes, hidden credentials, no unix datagrams out.
func (r ProbeResult) hardening(ns bool) []Guarantee {
	confined := r.Mechanism != MechanismNone
	g := []Guarantee{{"setuid refusal", confined, "chmod, fchmod, fchmodat, fchmodat2 and file creation (open, openat, creat, mknod) refuse a mode with the setuid or setgid bit (EPERM); openat2, whose mode seccomp cannot read, answers ENOSYS so programs fall back to openat"}}
	if ns {
		g = append(g,
			Guarantee{"nosuid", true, "every mount the command sees, the writable roots included, is nosuid"},
			Guarantee{"placeholders", true, "an absent .git .codex .agents .aws is held by an empty read-only directory without write bits while the command runs; sandboxes sharing a root share it under a flock and the last one out removes it; gocodex removes those of a helper killed with its turn, and the next sandbox in that root reuses and removes any left by a crash of both"},
			Guarantee{"credential hiding", true, "CODEX_HOME's auth.json, .credentials.json (MCP OAuth tokens) and secrets/ are covered by empty, unreadable, read-only entries"},
		)
	} else {
		g = append(g,
			Guarantee{"nosuid", false, "no mount namespace: the writable roots keep the host's mount flags (setuid refusal and no_new_privs still apply)"},
			Guarantee{"placeholders", false, "no mount namespace: an absent .git .codex .agents .aws is not held, so a command can create it"},
			Guarantee{"credential hiding", false, "no mount namespace: CODEX_HOME's auth.json, .credentials.json and secrets/ stay readable by commands, which run as their owner; Landlock grants reading a whole tree or none of it"},
		)
	}
	dgram := Guarantee{"unix datagrams", confined, "with the network restricted, no AF_UNIX datagram socket (SOCK_DGRAM, or SOCK_RAW, which is one) and no sendto to an address, so nothing reaches a pathname socket outside the roots; stream and seqpacket socketpairs, send and descriptor passing work"}
	if r.Mechanism.usesLandlock() && r.LandlockABI >= landlockResolveUnixABI {
		dgram.Detail = fmt.Sprintf("with the network restricted, Landlock ABI %d keeps pathname unix sockets outside the writable roots out of reach (LANDLOCK_ACCESS_FS_RESOLVE_UNIX), so datagram sockets stay allowed", r.LandlockABI)
	}
	return append(g, dgram)
}

// WriteExplanation prints the probe and its guarantees for a person.
func WriteExplanation(w io.Writer, r ProbeResult) {
	fmt.Fprintf(w, "mechanism: %s\n%s\n\n", r.Mechanism, r.Message())
	for _, g := range r.Explain(os.Getuid()) {
		state := "active  "
		if !g.Active {
			state = "inactive"
		}
		fmt.Fprintf(w, "%-8s %-18s %s\n", state, g.Mechanism, g.Detail)
	}
}
