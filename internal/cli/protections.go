package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/safegit"
)

// Protection is one of gocodex's own defences, beside the kernel's (sandbox.Guarantee): what
// keeps a repository's files and a model's writes from acting outside the sandbox.
type Protection struct {
	Name   string
	Active bool
	Detail string
}

// minSafeGit is the oldest git whose configuration overrides internal/safegit relies on.
var minSafeGit = [2]int{2, 31}

// AgentProtections lists the defences gocodex applies itself, for `sandbox --explain`.
// gitVersion is `git version`'s output ("" when git is missing); confined says whether the
// sandbox can be applied here (patches are written inside it).
func AgentProtections(confined bool, gitVersion string) []Protection {
	patches := Protection{"patches", confined, "apply_patch resolves every path through its symlinks and ..; a write outside the writable roots or into .git .codex .agents .aws is refused, naming the path and where it leads; the patch is written inside the sandbox"}
	if !confined {
		patches.Detail = "no sandbox here: apply_patch under a sandboxed policy is refused (it is written inside the sandbox, which cannot be applied)"
	}
	git := Protection{"git programs", false, ""}
	switch major, minor, ok := parseGitVersion(gitVersion); {
	case gitVersion == "":
		git.Detail = "git not found: gocodex runs no git (no snapshots, review checks or /diff)"
	case !ok:
		git.Detail = fmt.Sprintf("cannot read the git version (%q): gocodex's own git refuses to run rather than run unprotected", gitVersion)
	case major < minSafeGit[0] || (major == minSafeGit[0] && minor < minSafeGit[1]):
		git.Detail = fmt.Sprintf("git %d.%d is older than %d.%d: gocodex's own git (snapshots, review, /diff) refuses to run rather than run a repository's programs", major, minor, minSafeGit[0], minSafeGit[1])
	default:
		git.Active = true
		git.Detail = fmt.Sprintf("git %d.%d: the git gocodex runs outside the sandbox (snapshots, rewind, review, /diff, gitDiffToRemote) runs no filter, diff or merge driver, fsmonitor, hook, transport, pager or editor a repository names; a repository whose own config includes files is refused", major, minor)
	}
	return []Protection{
		patches,
		{"project trust", true, "a project's .codex config.toml, rules, hooks and prompts load only when the project is trusted (a nested project root inherits nothing), never a file written during a session of an untrusted project; a project's prompt cannot take a built-in's or the user's command name"},
		git,
		{"headless approvals", true, "gocodex exec declines an approval request at once: nobody is there to grant it"},
	}
}

// parseGitVersion reads "git version 2.39.5" (with any suffix, e.g. ".windows.1").
func parseGitVersion(out string) (major, minor int, ok bool) {
	_, rest, found := strings.Cut(out, "git version ")
	if !found {
		return 0, 0, false
	}
	parts := strings.SplitN(strings.TrimSpace(rest), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// GitVersion is `git version`'s output, or "" when git cannot be run.
func GitVersion(ctx context.Context) string {
	out, err := safegit.New(safegit.Options{Dir: os.TempDir()}).Output(ctx, "version")
	if err != nil {
		return ""
	}
	return string(out)
}

// WriteProtections prints the defences after the sandbox's mechanisms.
func WriteProtections(w io.Writer, ps []Protection) {
	fmt.Fprintln(w, "\ngocodex's own protections:")
	for _, p := range ps {
		state := "active  "
		if !p.Active {
			state = "inactive"
		}
		fmt.Fprintf(w, "%-8s %-18s %s\n", state, p.Name, p.Detail)
	}
}
