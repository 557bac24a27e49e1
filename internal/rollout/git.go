package rollout

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/gitmarker"
)

// CollectGitInfo reads the repository around cwd from its files (no git process: starting a
// thread must not wait on one): the HEAD commit, the branch, and origin's URL. It returns
// nil outside a repository, and in one with neither a commit nor an origin.
func CollectGitInfo(cwd string) *GitInfo {
	gitDir, commonDir := findGitDir(cwd)
	if gitDir == "" {
		return nil
	}
	info := &GitInfo{}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return info
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: "); ok {
		info.Branch = strings.TrimPrefix(ref, "refs/heads/")
		info.CommitHash = resolveRef(gitDir, commonDir, ref)
	} else {
		info.CommitHash = h
	}
	if info.CommitHash == "" {
		// An unborn branch has no name git would report (`git rev-parse --abbrev-ref HEAD`
		// fails), as Codex 0.169 sees it.
		info.Branch = ""
	}
	info.RepositoryURL = originURL(filepath.Join(commonDir, "config"))
	if *info == (GitInfo{}) {
		return nil // a repository without a commit or an origin: nothing to tell (Codex: null)
	}
	return info
}

// findGitDir walks up from dir to the repository's git dir; a `.git` file (worktree,
// submodule) points at it with "gitdir:", and its commondir file at the shared one.
func findGitDir(dir string) (gitDir, commonDir string) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if st, err := os.Stat(p); err == nil && gitmarker.Exists(os.Stat, d, ".git") {
			if st.IsDir() {
				return p, p
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return "", ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return "", ""
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			common := g
			if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(g, common)
				}
			}
			return g, common
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

func resolveRef(gitDir, commonDir, ref string) string {
	for _, dir := range []string{gitDir, commonDir} {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	f, err := os.Open(filepath.Join(commonDir, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return hash
		}
	}
	return ""
}

// originURL reads [remote "origin"] url from a git config file.
func originURL(configPath string) string {
	f, err := os.Open(configPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.ReplaceAll(line, " ", "") == `[remote"origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); in && ok && strings.TrimSpace(k) == "url" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
