package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// WritableRoot is a directory tree a sandboxed command may write, minus the subpaths that
// stay read-only inside it.
type WritableRoot struct {
	Root             string
	ReadOnlySubpaths []string
}

// protectedNames are kept read-only inside every writable root, whether they exist or not: a
// command that could write .git (hooks, config, core.fsmonitor), .codex (config, rules),
// .agents (skills) or .aws (credentials, credential_process) could have its code run outside
// the sandbox by the next git, codex or aws command. Codex 0.169 protects the same four.
var protectedNames = []string{".git", ".codex", ".agents", ".aws"}

// WritableRoots lists what a policy lets commands write. workspace-write gives the cwd, the
// configured writable_roots (relative ones resolved against cwd), /tmp unless
// exclude_slash_tmp and $TMPDIR unless exclude_tmpdir_env_var; read-only gives nothing, and so
// does danger-full-access, which is not confined at all (see Policy.HasFullDiskWriteAccess).
// Roots that do not exist are dropped; duplicates are merged.
func WritableRoots(p protocol.SandboxPolicy, cwd string, env func(string) string) []WritableRoot {
	if p.EffectiveMode() != protocol.SandboxWorkspaceWrite {
		return nil
	}
	var dirs []string
	add := func(d string) {
		if d == "" {
			return
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		d = filepath.Clean(d)
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return
		}
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	add(cwd)
	for _, r := range p.WritableRoots {
		add(r)
	}
	if !p.ExcludeSlashTmp {
		add("/tmp")
	}
	if !p.ExcludeTmpdirEnvVar && env != nil {
		add(env("TMPDIR"))
	}
	roots := make([]WritableRoot, 0, len(dirs))
	for _, d := range dirs {
		roots = append(roots, WritableRoot{Root: d, ReadOnlySubpaths: protectedSubpaths(d)})
	}
	return roots
}

// protectedSubpaths returns the protected entries of root, existing or not, plus the real git
// directory when .git is a file pointing elsewhere (worktrees, submodules).
func protectedSubpaths(root string) []string {
	var out []string
	for _, name := range protectedNames {
		p := filepath.Join(root, name)
		out = append(out, p)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if name == ".git" && fi.Mode().IsRegular() {
			if gitdir, ok := readGitdir(p); ok && !slices.Contains(out, gitdir) {
				out = append(out, gitdir)
			}
		}
	}
	return out
}

// readGitdir parses a ".git" file ("gitdir: <path>") and returns the directory it names.
func readGitdir(gitFile string) (string, bool) {
	f, err := os.Open(gitFile)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", false
	}
	dir := strings.TrimSpace(rest)
	if dir == "" {
		return "", false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(gitFile), dir)
	}
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	return dir, true
}
