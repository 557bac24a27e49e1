package tui

import (
	"bufio"
	"bytes"
	"os"
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
	patterns := readPatterns(globalExcludesFile(), nil)
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

// globalExcludesFile is git's core.excludesFile from the user's git configuration
// (~/.gitconfig, then $XDG_CONFIG_HOME/git/config, the later winning, as git reads them),
// by default $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore). The files are read, not
// git run: a repository's own configuration cannot change the list of files to offer.
func globalExcludesFile() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	found := ""
	for _, cfg := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		if home == "" && strings.HasPrefix(cfg, ".gitconfig") {
			continue
		}
		if v := coreExcludesFile(cfg); v != "" {
			found = v
		}
	}
	if found == "" {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if found == "~" || strings.HasPrefix(found, "~/") {
		found = filepath.Join(home, strings.TrimPrefix(found, "~"))
	}
	return found
}

// coreExcludesFile reads `excludesFile` of the [core] section of one git config file.
func coreExcludesFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	section, value := "", ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.TrimSpace(strings.Trim(line, "[]")))
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value
}
