package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/writejournal"
)

// Trust levels of [projects."<path>"] entries.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// trustContext reads the [projects."<path>"] trust_level entries as Codex 0.169 and 0.171 do
// (observed with the reference binary; pinned in e2e/testdata/codex-0.169-project-trust.json):
//
//   - the session is trusted when the entry of cwd itself, else of the repository root,
//     says so;
//   - each .codex folder between the project root and cwd loads when the entry of its own
//     directory, else of the project root, else of the repository root, says "trusted".
//
// No other ancestor counts: a trusted parent folder trusts nothing inside it, and a project
// root nested in a trusted repository (a folder with its own .git) is a project of its own.
// "untrusted" and no entry both leave project configuration unloaded; they differ in the
// defaults they give (see resolvePolicies) and in what a face may do: only a project with
// no entry is asked about (the TUI) or trusted by a client's thread/start.
type trustContext struct {
	levels   map[string]trustEntry // by canonical path
	root     string                // the project root
	repoRoot string                // the repository root for trust; "" when none
}

// trustEntry is one [projects] entry: its level and its key as written.
type trustEntry struct{ level, key string }

func newTrustContext(merged map[string]any, cwd, root string, env func(string) string) trustContext {
	tc := trustContext{levels: map[string]trustEntry{}, root: root, repoRoot: repoRootForTrust(cwd)}
	projects, _ := merged["projects"].(map[string]any)
	for k, v := range projects {
		t, _ := v.(map[string]any)
		if lvl, ok := t["trust_level"].(string); ok {
			tc.levels[canonical(absPath(k, cwd, env))] = trustEntry{level: lvl, key: k}
		}
	}
	return tc
}

// decide returns the entry of the first of dirs that has one (the zero entry when none
// does); empty dirs are skipped.
func (tc trustContext) decide(dirs ...string) trustEntry {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if e, ok := tc.levels[canonical(d)]; ok {
			return e
		}
	}
	return trustEntry{}
}

// target is where a decision about this project is recorded: the repository root for trust,
// else the project root (cwd when there is no marker), as Codex writes it.
func (tc trustContext) target() string {
	if tc.repoRoot != "" {
		return tc.repoRoot
	}
	return tc.root
}

// repoRootForTrust finds the repository cwd is in the way git does (a `.git` folder
// without HEAD is passed by, a `.git` file must name a git directory) and returns its work
// tree's root; for a linked worktree, the main checkout's root. It returns "" when cwd is in
// no repository, or when a `.git` file is not a pointer git would follow: an empty file, or a
// worktree pointer whose git directory does not point back at it (a `.git` file written to
// borrow another checkout's trust).
func repoRootForTrust(cwd string) string {
	for dir := cwd; ; dir = filepath.Dir(dir) {
		dotGit := filepath.Join(dir, ".git")
		fi, err := os.Lstat(dotGit)
		switch {
		case err != nil:
		case fi.IsDir():
			if isGitDir(dotGit) {
				return dir
			}
		case fi.Mode().IsRegular():
			return worktreeMainRoot(dir, dotGit)
		default:
			return "" // a link or device named .git: git refuses it too
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// worktreeMainRoot follows the `gitdir:` pointer of a `.git` file in dir.
func worktreeMainRoot(dir, dotGit string) string {
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if target = strings.TrimSpace(target); !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	gitDir := canonical(target)
	if !isGitDir(gitDir) {
		return ""
	}
	worktrees := filepath.Dir(gitDir)
	if filepath.Base(worktrees) != "worktrees" {
		return dir // a submodule's or another separate git directory: its own project
	}
	// git records the checkout's .git file in <admin>/gitdir; a pointer it did not write
	// does not borrow the main checkout's trust.
	back, err := os.ReadFile(filepath.Join(gitDir, "gitdir"))
	if err != nil || canonical(strings.TrimSpace(string(back))) != canonical(dotGit) {
		return ""
	}
	return filepath.Dir(filepath.Dir(worktrees))
}

// isGitDir is git's first test of a git directory: it has a HEAD.
func isGitDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// ProjectFolder is one project .codex folder between the project root and cwd (root first),
// with the trust decision that says whether what it holds may load: config.toml here, the
// rules, hooks and custom commands by their loaders (see Config.ProjectFileRefused).
type ProjectFolder struct {
	// Dir is the .codex folder.
	Dir string
	// Level is the deciding entry's trust_level ("" when no entry decides), Key the
	// [projects] key that decided, or where a decision would be recorded when none did.
	Level, Key string
}

// Trusted says whether the folder's files may load.
func (f ProjectFolder) Trusted() bool { return f.Level == TrustTrusted }

// notTrustedReason says why the folder does not load and how to change that.
func (f ProjectFolder) notTrustedReason(userConfig string) string {
	if f.Level == TrustUntrusted {
		return quoteKey(f.Key) + " is marked untrusted in " + userConfig + `: set its trust_level = "trusted" to load them`
	}
	return quoteKey(f.Key) + " is not a trusted project: to load them, set [projects." + quoteKey(f.Key) + `] trust_level = "trusted" in ` + userConfig
}

// The files of a .codex folder that configure what gocodex runs: each loads only from a
// trusted folder.
const (
	ProjectConfigFile = "config.toml"
	ProjectHooksFile  = "hooks.json"
	ProjectRulesDir   = "rules"   // *.rules
	ProjectPromptsDir = "prompts" // *.md
)

// injectableFiles lists what dir (a .codex folder) holds that would configure gocodex.
func injectableFiles(dir string) []string {
	var out []string
	for _, name := range []string{ProjectConfigFile, ProjectHooksFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			out = append(out, filepath.Join(dir, name))
		}
	}
	for _, d := range []struct{ dir, ext string }{{ProjectRulesDir, ".rules"}, {ProjectPromptsDir, ".md"}} {
		entries, _ := os.ReadDir(filepath.Join(dir, d.dir))
		for _, e := range entries {
			if !e.IsDir() && filepath.Ext(e.Name()) == d.ext {
				out = append(out, filepath.Join(dir, d.dir, e.Name()))
			}
		}
	}
	return out
}

// TrustedProjectFolders are the .codex folders whose files may load, root first (closest to
// cwd last, so it wins where later layers do).
func (c *Config) TrustedProjectFolders() []string {
	var out []string
	for _, f := range c.ProjectFolders {
		if f.Trusted() {
			out = append(out, f.Dir)
		}
	}
	return out
}

// ProjectFileRefused says why path, a file in one of ProjectFolders, must not load, or ""
// when it may: its folder is not trusted, or it (or a folder on its way from the .codex
// folder) changed while a session of a project that was not trusted could write there.
// Config.Load has already warned about the files present then; loaders skip the refused
// ones quietly.
func (c *Config) ProjectFileRefused(path string) string {
	for _, f := range c.ProjectFolders {
		if rel, err := filepath.Rel(f.Dir, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if !f.Trusted() {
			return f.notTrustedReason(filepath.Join(c.CodexHome, "config.toml"))
		}
		return refusedWrite(c.journal(), f, path)
	}
	return path + " is in none of the project's .codex folders"
}

func (c *Config) journal() *writejournal.Journal {
	if c.writes == nil {
		c.writes = writejournal.Open(c.CodexHome)
	}
	return c.writes
}

// WriteJournal is CODEX_HOME's journal of the windows in which sessions could write.
func (c *Config) WriteJournal() *writejournal.Journal { return c.journal() }

// TrustTargetSuspect says why TrustRoot must not be trusted on a client's behalf (Codex's
// thread/start trusts a folder it starts in), or "" when it may: its .git is there but git
// would not take it for a repository (an empty file, a pointer that does not point back), or
// its .git or .codex changed while a gocodex session could write there — a project root the
// model may have made inside the folder the person trusted. The person can still trust it.
func (c *Config) TrustTargetSuspect() string {
	root := c.TrustRoot
	if root == "" {
		return ""
	}
	dotGit := filepath.Join(root, ".git")
	if _, err := os.Lstat(dotGit); err == nil && repoRootForTrust(root) == "" {
		return dotGit + " is not a repository git would use"
	}
	windows, err := c.journal().Read()
	if err != nil {
		return err.Error()
	}
	// Sessions that began after this configuration was loaded (the thread being started)
	// have written nothing the client chose to start in.
	windows = windows.Before(c.loadedAt)
	for _, p := range []string{dotGit, filepath.Join(root, ".codex")} {
		if ch, ok, err := windows.ChangedIn(p, false); err != nil {
			return err.Error()
		} else if ok {
			return ch.String()
		}
	}
	return ""
}
