package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// loadProjects finds the project root, decides trust, and loads the
// .codex/config.toml files between the root and cwd when trusted.
func (l *loader) loadProjects(merged map[string]any) error {
	markers := []string{".git"}
	if raw, ok := merged["project_root_markers"].([]any); ok {
		markers = markers[:0]
		for _, m := range raw {
			if s, ok := m.(string); ok && s != "" {
				markers = append(markers, s)
			}
		}
	}
	l.projectRoot = findProjectRoot(l.cwd, markers)
	l.trust = trustLevel(merged, l.cwd, l.projectRoot, l.env)

	var dirs []string
	for dir := l.cwd; ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == l.projectRoot || dir == filepath.Dir(dir) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		codexDir := filepath.Join(dirs[i], ".codex")
		if sameDir(codexDir, l.home) {
			continue // that is the user layer, already loaded
		}
		path := filepath.Join(codexDir, "config.toml")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if l.trust != TrustTrusted {
			l.warnings = append(l.warnings, Warning{File: path,
				Message: fmt.Sprintf("project config ignored: %s is not a trusted project (set [projects.%s] trust_level = \"trusted\")",
					l.projectRoot, quoteKey(l.projectRoot))})
			continue
		}
		layer, err := l.readFileLayer(SourceProject, path)
		if err != nil {
			return err
		}
		if layer != nil {
			l.layers = append(l.layers, layer)
		}
	}
	return nil
}

// Trust levels of [projects."<path>"] entries.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// findProjectRoot walks up from cwd to the nearest directory holding one of
// the markers; with none found (or no markers) cwd is its own root.
func findProjectRoot(cwd string, markers []string) string {
	if len(markers) == 0 {
		return cwd
	}
	for dir := cwd; ; dir = filepath.Dir(dir) {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == filepath.Dir(dir) {
			return cwd
		}
	}
}

// trustLevel returns the trust_level of cwd's nearest [projects] entry: cwd,
// its ancestors, and the project root (so trusting a repository covers its
// sub-directories).
func trustLevel(merged map[string]any, cwd, root string, env func(string) string) string {
	projects, _ := merged["projects"].(map[string]any)
	if len(projects) == 0 {
		return ""
	}
	levels := map[string]string{}
	for k, v := range projects {
		t, _ := v.(map[string]any)
		if lvl, ok := t["trust_level"].(string); ok {
			levels[canonical(absPath(k, cwd, env))] = lvl
		}
	}
	for dir := canonical(cwd); ; dir = filepath.Dir(dir) {
		if lvl, ok := levels[dir]; ok {
			return lvl
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return levels[canonical(root)]
}

func canonical(p string) string {
	p = absClean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func sameDir(a, b string) bool {
	if canonical(a) == canonical(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
