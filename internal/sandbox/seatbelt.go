package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// SeatbeltExecutable is the only sandbox-exec gocodex runs: by absolute path, so a
// sandbox-exec placed earlier on PATH cannot stand in for it.
const SeatbeltExecutable = "/usr/bin/sandbox-exec"

// SeatbeltEnv is added to a Seatbelt-confined command's environment, as Codex adds it.
const SeatbeltEnv = "CODEX_SANDBOX=seatbelt"

// SeatbeltParam is one -D definition given to sandbox-exec: the profile names the
// parameter, the value (always a path) travels as an argument and is never part of the
// profile's text, so no quote, bracket or newline in a path can change what the profile says.
type SeatbeltParam struct {
	Name, Value string
}

// SeatbeltProfile is the macOS sandbox profile for one policy and the parameters it reads.
type SeatbeltProfile struct {
	Text   string
	Params []SeatbeltParam
}

// Args is the sandbox-exec command line (after the program) that runs argv confined.
func (p SeatbeltProfile) Args(argv []string) []string {
	args := make([]string, 0, 3+len(p.Params)+len(argv))
	args = append(args, "-p", p.Text)
	for _, d := range p.Params {
		args = append(args, "-D"+d.Name+"="+d.Value)
	}
	args = append(args, "--")
	return append(args, argv...)
}

// NewSeatbeltProfile builds the profile for policy with its cwd-relative parts resolved
// against policyCwd and TMPDIR read through getenv. Seatbelt compares the real paths of
// files, so every root is resolved through its symlinks first (/tmp is /private/tmp on
// macOS, and TMPDIR lives under /private/var).
func NewSeatbeltProfile(policy protocol.SandboxPolicy, policyCwd string, getenv func(string) string) SeatbeltProfile {
	return buildSeatbeltProfile(policy, WritableRoots(policy, policyCwd, getenv), filepath.EvalSymlinks)
}

// The profile's parts. They name no path: paths come in as parameters.
const (
	seatbeltBase = `(version 1)
; gocodex: what is not allowed below is denied.
(deny default)

; Running programs: a command may start others, which inherit this profile, and may signal
; and inspect only processes inside the same sandbox.
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Reading: every file.
(allow file-read*)

; What shells and runtimes ask the system for: system settings, user and group lookups,
; CPU facts, POSIX semaphores (Python's multiprocessing).
(allow sysctl-read user-preference-read mach-host* ipc-posix-sem)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control"))

; Device files a shell writes: the null device and the descriptors it already holds.
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$"))

; Terminals: a new pseudo-terminal, and the one the command was given.
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-write-data file-ioctl (regex #"^/dev/ttys[0-9]+$"))
`
	seatbeltNetwork = `
; Network: allowed by the policy.
(allow network-outbound network-inbound system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd")
  (global-name "com.apple.bsd.dirhelper"))
`
	seatbeltNoNetwork = `
; Network: denied by the policy (no rule allows it).
`
)

// seatbeltCaseVariants keeps the protected names safe on a case-insensitive volume (macOS'
// default), where .GIT is .git: no name that is one of them in another case (ſ counts as s) is
// written anywhere beneath a root. The exact names stay writable below the root (a nested
// repository's .git); the root's own are protected by the parameters above.
var seatbeltCaseVariants = func() string {
	var b strings.Builder
	for _, re := range caseVariantRegexes() {
		fmt.Fprintf(&b, "\n    (require-not (regex #\"%s\"))", re)
	}
	return b.String()
}()

// caseVariantRegexes match a path with a component spelled as a protected name in any case
// but its own. Each is plain (no alternation, no multibyte character in a bracket): the
// variants are split by the first letter that differs from the exact spelling.
func caseVariantRegexes() []string {
	// others are a letter's spellings besides its own (ſ also folds to s); any, all of them.
	others := func(c rune) []string {
		o := []string{string(c - 'a' + 'A')}
		if c == 's' {
			o = append(o, "\u017f")
		}
		return o
	}
	any := func(c rune) []string {
		if c == 's' {
			return []string{"[sS]", "\u017f"}
		}
		return []string{fmt.Sprintf("[%c%c]", c, c-'a'+'A')}
	}
	var out []string
	for _, name := range protectedNames {
		letters := []rune(name[1:])
		for k, c := range letters {
			patterns := []string{`/\.` + string(letters[:k])}
			for i, l := range letters[k:] {
				options := any(l)
				if i == 0 {
					options = others(c)
				}
				var next []string
				for _, p := range patterns {
					for _, o := range options {
						next = append(next, p+o)
					}
				}
				patterns = next
			}
			for _, p := range patterns {
				out = append(out, p+`(/.*)?$`)
			}
		}
	}
	return out
}

// buildSeatbeltProfile writes the profile for policy and roots (WritableRoots' answer);
// realpath resolves symlinks (filepath.EvalSymlinks, or a test's stand-in).
func buildSeatbeltProfile(policy protocol.SandboxPolicy, roots []WritableRoot, realpath func(string) (string, error)) SeatbeltProfile {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	var params []SeatbeltParam
	param := func(name, value string) string {
		params = append(params, SeatbeltParam{Name: name, Value: value})
		return fmt.Sprintf("(param %q)", name)
	}
	if real := seatbeltRoots(roots, realpath); len(real) > 0 {
		b.WriteString("\n; Writing: beneath the writable roots, except their protected names (.git, .codex,\n; .agents, .aws), which stay read-only even before they exist.\n(allow file-write*")
		for i, r := range real {
			root := param(fmt.Sprintf("WRITABLE_ROOT_%d", i), r.Root)
			if len(r.ReadOnlySubpaths) == 0 {
				fmt.Fprintf(&b, "\n  (subpath %s)", root)
				continue
			}
			fmt.Fprintf(&b, "\n  (require-all (subpath %s)", root)
			for j, ro := range r.ReadOnlySubpaths {
				p := param(fmt.Sprintf("WRITABLE_ROOT_%d_RO_%d", i, j), ro)
				fmt.Fprintf(&b, "\n    (require-not (literal %s)) (require-not (subpath %s))", p, p)
			}
			b.WriteString(seatbeltCaseVariants)
			b.WriteString(")")
		}
		b.WriteString(")\n")
	}
	if policy.HasFullNetworkAccess() {
		b.WriteString(seatbeltNetwork)
	} else {
		b.WriteString(seatbeltNoNetwork)
	}
	return SeatbeltProfile{Text: b.String(), Params: params}
}

// seatbeltRoots resolves each root and its read-only subpaths to real paths. A protected
// name is kept under the resolved root even when it does not exist (so it cannot be made),
// and its own target too when it is a symlink or a gitdir elsewhere.
func seatbeltRoots(roots []WritableRoot, realpath func(string) (string, error)) []WritableRoot {
	out := make([]WritableRoot, 0, len(roots))
	for _, r := range roots {
		real := WritableRoot{Root: r.Root}
		if p, err := realpath(r.Root); err == nil {
			real.Root = p
		}
		add := func(p string) {
			if !slices.Contains(real.ReadOnlySubpaths, p) {
				real.ReadOnlySubpaths = append(real.ReadOnlySubpaths, p)
			}
		}
		for _, ro := range r.ReadOnlySubpaths {
			inside := false
			if rel, err := filepath.Rel(r.Root, ro); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				add(filepath.Join(real.Root, rel))
				inside = true
			}
			if target, err := realpath(ro); err == nil {
				add(target)
			} else if !inside {
				add(ro)
			}
		}
		if !slices.ContainsFunc(out, func(o WritableRoot) bool { return o.Root == real.Root }) {
			out = append(out, real)
		}
	}
	return out
}
