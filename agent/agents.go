package agent

import "github.com/gocodex/gocodex/internal/prompt"

// AgentsOptions says where StartThread looks for the user instructions (config
// `instructions`, the global and project AGENTS.md files).
type AgentsOptions struct {
	// CodexHome holds the global AGENTS.override.md / AGENTS.md; empty skips them.
	CodexHome string
	// Cwd is the thread's working directory (absolute); empty means ThreadConfig.Cwd.
	Cwd string
	// ConfigInstructions is config `instructions`, placed before the global file.
	ConfigInstructions string
	// ProjectRootMarkers: nil means the default (.git); an empty, non-nil list disables the
	// walk up to the project root (cwd only).
	ProjectRootMarkers []string
	// FallbackFilenames is `project_doc_fallback_filenames`, tried after AGENTS.md.
	FallbackFilenames []string
	// MaxBytes is `project_doc_max_bytes`, the budget across all project docs; the last file
	// read is truncated to fit, and 0 disables project docs (Codex's default is 32 KiB).
	MaxBytes int
}

func (o AgentsOptions) prompt() prompt.AgentsOptions {
	return prompt.AgentsOptions{
		CodexHome:          o.CodexHome,
		Cwd:                o.Cwd,
		ConfigInstructions: o.ConfigInstructions,
		ProjectRootMarkers: o.ProjectRootMarkers,
		FallbackFilenames:  o.FallbackFilenames,
		MaxBytes:           o.MaxBytes,
	}
}
