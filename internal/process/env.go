// Package process spawns the commands the model asks for: with pipes or a pseudo-terminal,
// with output streamed to a callback and retained up to a cap, with timeouts and prompt
// cancellation that kill the whole process group, and with the environment built from the
// user's shell_environment_policy. It also holds the middle-truncation Codex applies to
// command output before the model sees it.
package process

import (
	"path"
	"runtime"
	"sort"
	"strings"
)

// Inherit says which variables of the parent environment a command starts from.
type Inherit string

const (
	// InheritAll starts from the whole parent environment (Codex's default).
	InheritAll Inherit = "all"
	// InheritCore starts from a small set of variables every program expects.
	InheritCore Inherit = "core"
	// InheritNone starts from an empty environment.
	InheritNone Inherit = "none"
)

// coreVars is the `inherit = "core"` set. Windows spells names in any case (Path, Temp), and
// Codex matches them without case there.
var coreVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL", "LC_CTYPE"}

// envNamesIgnoreCase: the system's environment names are case-insensitive.
var envNamesIgnoreCase = runtime.GOOS == "windows"

// isCoreVar reports whether name is in the core set.
func isCoreVar(name string, ignoreCase bool) bool {
	for _, k := range coreVars {
		if k == name || (ignoreCase && strings.EqualFold(k, name)) {
			return true
		}
	}
	return false
}

// defaultExcludes are dropped unless IgnoreDefaultExcludes is set: names that usually hold
// credentials.
var defaultExcludes = []string{"*KEY*", "*SECRET*", "*TOKEN*"}

// EnvPolicy is `[shell_environment_policy]`. The zero value inherits nothing and excludes by
// default; use DefaultEnvPolicy for Codex's defaults.
type EnvPolicy struct {
	Inherit Inherit
	// IgnoreDefaultExcludes keeps variables whose names match *KEY*, *SECRET* or *TOKEN*.
	// Codex's default is true.
	IgnoreDefaultExcludes bool
	// Exclude lists case-insensitive glob patterns of names to drop.
	Exclude []string
	// Set is inserted after the excludes, overriding inherited values.
	Set map[string]string
	// IncludeOnly, when non-empty, keeps only names matching one of these case-insensitive
	// globs; it is applied last.
	IncludeOnly []string
}

// DefaultEnvPolicy is what Codex uses when config.toml has no [shell_environment_policy].
func DefaultEnvPolicy() EnvPolicy {
	return EnvPolicy{Inherit: InheritAll, IgnoreDefaultExcludes: true}
}

// EnvOptions are the per-thread facts added after the policy.
type EnvOptions struct {
	// ThreadID becomes CODEX_THREAD_ID when not empty.
	ThreadID string
	// NetworkDisabled adds CODEX_SANDBOX_NETWORK_DISABLED=1, so tools and test suites can
	// skip what needs the network.
	NetworkDisabled bool
	// Extra is applied last (unified exec's NO_COLOR, PAGER, ...).
	Extra map[string]string
}

// BuildEnv applies the policy to parent (os.Environ form) in Codex's order: inherit, default
// excludes, excludes, set, include_only; then the options. It returns a sorted KEY=VALUE
// list ready for exec.Cmd.Env.
func BuildEnv(p EnvPolicy, parent []string, opts EnvOptions) []string {
	vars := make(map[string]string, len(parent))
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		vars[k] = v
	}
	switch p.Inherit {
	case InheritAll:
	case InheritCore:
		core := make(map[string]string, len(coreVars))
		for k, v := range vars {
			if isCoreVar(k, envNamesIgnoreCase) {
				core[k] = v
			}
		}
		vars = core
	default:
		vars = map[string]string{}
	}
	if !p.IgnoreDefaultExcludes {
		dropMatching(vars, defaultExcludes, true)
	}
	dropMatching(vars, p.Exclude, true)
	for k, v := range p.Set {
		vars[k] = v
	}
	if len(p.IncludeOnly) > 0 {
		dropMatching(vars, p.IncludeOnly, false)
	}
	if opts.NetworkDisabled {
		vars["CODEX_SANDBOX_NETWORK_DISABLED"] = "1"
	}
	if opts.ThreadID != "" {
		vars["CODEX_THREAD_ID"] = opts.ThreadID
	}
	for k, v := range opts.Extra {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// dropMatching deletes the names that match (drop=true) or do not match (drop=false) any of
// the patterns.
func dropMatching(vars map[string]string, patterns []string, drop bool) {
	if len(patterns) == 0 {
		return
	}
	for k := range vars {
		if matchAny(patterns, k) == drop {
			delete(vars, k)
		}
	}
}

// matchAny reports whether name matches one of the case-insensitive glob patterns. A
// malformed pattern matches nothing rather than failing the command.
func matchAny(patterns []string, name string) bool {
	lname := strings.ToLower(name)
	for _, p := range patterns {
		if ok, err := path.Match(strings.ToLower(p), lname); err == nil && ok {
			return true
		}
	}
	return false
}
