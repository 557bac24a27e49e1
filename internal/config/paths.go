package config

import (
	"path/filepath"
	"strings"
)

// pathKeys are keys holding file-system paths; a relative path is taken
// relative to the directory of the file that sets it (the cwd for -c), and
// `~/` is expanded, as Codex does for its absolute-path settings.
var pathKeys = [][]string{
	{"model_instructions_file"}, {"experimental_instructions_file"}, {"experimental_compact_prompt_file"},
	{"sqlite_home"}, {"log_dir"},
}

func resolvePaths(data map[string]any, base string, env func(string) string) {
	fix := func(m map[string]any) {
		for _, k := range pathKeys {
			if s, ok := m[k[0]].(string); ok && s != "" {
				m[k[0]] = absPath(s, base, env)
			}
		}
		if sww, ok := m["sandbox_workspace_write"].(map[string]any); ok {
			if roots, ok := sww["writable_roots"].([]any); ok {
				for i, r := range roots {
					if s, ok := r.(string); ok {
						roots[i] = absPath(s, base, env)
					}
				}
			}
		}
	}
	fix(data)
	if profiles, ok := data["profiles"].(map[string]any); ok {
		for _, p := range profiles {
			if pm, ok := p.(map[string]any); ok {
				fix(pm)
			}
		}
	}
}

func absPath(p, base string, env func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := env("HOME"); home != "" {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}
