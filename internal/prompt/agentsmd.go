package prompt

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// The file names and separator of AGENTS.md discovery. The separator marks where
// workspace-scoped instructions begin; models know it from Codex.
const (
	AgentsFileName         = "AGENTS.md"
	AgentsOverrideFileName = "AGENTS.override.md"
	projectDocSeparator    = "\n\n--- project-doc ---\n\n"
	// DefaultProjectDocMaxBytes is the default `project_doc_max_bytes`: 32 KiB across all
	// project docs.
	DefaultProjectDocMaxBytes = 32 * 1024
)

// DefaultProjectRootMarkers is used when `project_root_markers` is not configured.
func DefaultProjectRootMarkers() []string { return []string{".git"} }

// AgentsOptions configures user-instruction discovery. It mirrors the config keys.
type AgentsOptions struct {
	// CodexHome holds the global AGENTS.override.md / AGENTS.md; empty skips them.
	CodexHome string
	// Cwd is the thread's working directory (absolute).
	Cwd string
	// ConfigInstructions is config `instructions`, placed before the global file.
	ConfigInstructions string
	// ProjectRootMarkers: nil means DefaultProjectRootMarkers; an empty, non-nil list
	// disables the walk (cwd only).
	ProjectRootMarkers []string
	// FallbackFilenames is `project_doc_fallback_filenames`, tried after AGENTS.md.
	FallbackFilenames []string
	// MaxBytes is `project_doc_max_bytes`, the budget across all project docs; the last file
	// read is truncated to fit, and 0 disables project docs. Callers pass
	// DefaultProjectDocMaxBytes when the key is unset.
	MaxBytes int
	// FS reads the files; nil means the operating system's.
	FS FS
}

// UserInstructions gathers the user instructions: config `instructions` and the global
// AGENTS file (joined by a blank line), then the project docs after the project-doc
// separator. It returns "" when there is nothing. Missing files are not errors; unreadable
// ones are.
func UserInstructions(opts AgentsOptions) (string, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = OSFS{}
	}
	var user []string
	if s := strings.TrimSpace(opts.ConfigInstructions); s != "" {
		user = append(user, s)
	}
	if opts.CodexHome != "" {
		global, err := globalAgents(fsys, opts.CodexHome)
		if err != nil {
			return "", err
		}
		if global != "" {
			user = append(user, global)
		}
	}
	docs, err := ProjectDocs(opts)
	if err != nil {
		return "", err
	}
	out := strings.Join(user, "\n\n")
	if len(docs) > 0 {
		if out != "" {
			out += projectDocSeparator
		}
		out += strings.Join(docs, "\n\n")
	}
	return out, nil
}

// globalAgents returns the first non-empty of CODEX_HOME/AGENTS.override.md and AGENTS.md,
// trimmed.
func globalAgents(fsys FS, home string) (string, error) {
	for _, name := range []string{AgentsOverrideFileName, AgentsFileName} {
		data, err := fsys.ReadFile(filepath.Join(home, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", filepath.Join(home, name), err)
		}
		if s := strings.TrimSpace(string(data)); s != "" {
			return s, nil
		}
	}
	return "", nil
}

// ProjectDocs returns the contents of the project docs from the project root down to cwd,
// within the byte budget. Contents are kept as written (not trimmed); docs that are only
// whitespace are skipped and cost nothing.
func ProjectDocs(opts AgentsOptions) ([]string, error) {
	if opts.MaxBytes <= 0 {
		return nil, nil
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = OSFS{}
	}
	paths, err := ProjectDocPaths(opts)
	if err != nil {
		return nil, err
	}
	remaining := opts.MaxBytes
	var docs []string
	for _, p := range paths {
		if remaining <= 0 {
			break
		}
		data, err := fsys.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read project doc %s: %w", p, err)
		}
		if len(data) > remaining {
			data = data[:remaining]
		}
		// A cut may split a UTF-8 sequence; the broken tail becomes U+FFFD.
		text := strings.ToValidUTF8(string(data), "\uFFFD")
		if strings.TrimSpace(text) == "" {
			continue
		}
		docs = append(docs, text)
		remaining -= len(data)
	}
	return docs, nil
}

// ProjectDocPaths lists the project doc of each directory from the project root down to cwd
// (inclusive), preferring AGENTS.override.md, then AGENTS.md, then the fallback names. The
// root is the nearest ancestor of cwd holding one of the markers; without one, only cwd is
// searched, and the walk never goes above the root.
func ProjectDocPaths(opts AgentsOptions) ([]string, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = OSFS{}
	}
	cwd := filepath.Clean(opts.Cwd)
	markers := opts.ProjectRootMarkers
	if markers == nil {
		markers = DefaultProjectRootMarkers()
	}
	root := ""
	if len(markers) > 0 {
	search:
		for dir := cwd; ; {
			for _, m := range markers {
				_, err := fsys.Stat(filepath.Join(dir, m))
				if err == nil {
					root = dir
					break search
				}
				if !errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("look for project root marker %s: %w", filepath.Join(dir, m), err)
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	dirs := []string{cwd}
	if root != "" {
		dirs = dirs[:0]
		for dir := cwd; ; dir = filepath.Dir(dir) {
			dirs = append(dirs, dir)
			if dir == root || filepath.Dir(dir) == dir {
				break
			}
		}
		for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
			dirs[i], dirs[j] = dirs[j], dirs[i]
		}
	}
	names := candidateNames(opts.FallbackFilenames)
	var found []string
	for _, dir := range dirs {
		for _, name := range names {
			p := filepath.Join(dir, name)
			info, err := fsys.Stat(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("stat project doc %s: %w", p, err)
			}
			if info.Mode().IsRegular() {
				found = append(found, p)
				break
			}
		}
	}
	return found, nil
}

func candidateNames(fallbacks []string) []string {
	names := []string{AgentsOverrideFileName, AgentsFileName}
	for _, f := range fallbacks {
		if f == "" {
			continue
		}
		dup := false
		for _, n := range names {
			if n == f {
				dup = true
				break
			}
		}
		if !dup {
			names = append(names, f)
		}
	}
	return names
}
