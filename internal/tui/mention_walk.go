package tui

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The @ mention list walks the work tree as Codex's file search does (ripgrep's walker):
// hidden files are listed, .git is not, and a path is left out when git's excludes
// (core.excludesFile, .git/info/exclude), a .gitignore or an .ignore file from the
// repository's root down says so, inside a git repository or not.

// ignoreFiles are read in each folder, the later winning: .ignore overrides .gitignore.
var ignoreFiles = []string{".gitignore", ".ignore"}

// walkFiles lists the files under root (relative, slash-separated) that no ignore rule
// leaves out, at most limit of them.
func walkFiles(root string, limit int) []string {
	files := []string{}
	base, gitDir := repoRoot(root)
	patterns := readPatterns(globalExcludesFile(root), nil)
	if base == "" {
		base = root
	}
	if gitDir != "" {
		patterns = append(patterns, readPatterns(filepath.Join(gitDir, "info", "exclude"), nil)...)
	}
	// The ignore files of the folders from the repository's root down to root apply too.
	if rel, err := filepath.Rel(base, root); err == nil && rel != "." {
		parts := strings.Split(filepath.ToSlash(rel), "/")
		for i := range parts {
			patterns = append(patterns, dirPatterns(filepath.Join(base, filepath.Join(parts[:i]...)), parts[:i])...)
		}
	}
	var walk func(dir string, domain []string, inherited []gitignore.Pattern) bool
	walk = func(dir string, domain []string, inherited []gitignore.Pattern) bool {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return true
		}
		ps := append(inherited[:len(inherited):len(inherited)], dirPatterns(dir, domain)...)
		matcher := gitignore.NewMatcher(ps)
		for _, e := range entries {
			name := e.Name()
			isDir := e.IsDir()
			if isDir && name == ".git" {
				continue
			}
			path := append(domain[:len(domain):len(domain)], name)
			if matcher.Match(path, isDir) {
				continue
			}
			if isDir {
				if !walk(filepath.Join(dir, name), path, ps) {
					return false
				}
				continue
			}
			if rel, err := filepath.Rel(root, filepath.Join(dir, name)); err == nil {
				files = append(files, filepath.ToSlash(rel))
			}
			if len(files) >= limit {
				return false
			}
		}
		return true
	}
	var rootDomain []string
	if rel, err := filepath.Rel(base, root); err == nil && rel != "." {
		rootDomain = strings.Split(filepath.ToSlash(rel), "/")
	}
	walk(root, rootDomain, patterns)
	return files
}

// dirPatterns are the patterns of dir's own ignore files; domain is dir's path from the
// matching root.
func dirPatterns(dir string, domain []string) []gitignore.Pattern {
	var out []gitignore.Pattern
	for _, name := range ignoreFiles {
		out = append(out, readPatterns(filepath.Join(dir, name), domain)...)
	}
	return out
}

// readPatterns parses one ignore file; a missing or unreadable one has none.
func readPatterns(path string, domain []string) []gitignore.Pattern {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

// repoRoot finds the git work tree holding dir and its git folder (where info/exclude is;
// a linked worktree's is its main repository's); "" outside one.
func repoRoot(dir string) (root, gitDir string) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				return d, dotGit
			}
			return d, linkedGitDir(dotGit)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// linkedGitDir reads a .git file ("gitdir: PATH") and follows a worktree's commondir.
func linkedGitDir(dotGit string) string {
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(dotGit), dir)
	}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		return c
	}
	return dir
}

// globalExcludesFile is git's core.excludesFile, by default $XDG_CONFIG_HOME/git/ignore
// (~/.config/git/ignore).
func globalExcludesFile(dir string) string {
	cmd := exec.Command("git", "config", "--path", "--get", "core.excludesFile")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		if p := strings.TrimSpace(string(out)); p != "" {
			return p
		}
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "git", "ignore")
	}
	return ""
}
