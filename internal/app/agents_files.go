package app

import (
	"os"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/prompt"
)

// AgentsFiles lists the AGENTS.md files a thread with cfg reads: the global one (its override
// first) and the project's (/status shows them).
func AgentsFiles(cfg *config.Config) []string {
	var out []string
	for _, name := range []string{prompt.AgentsOverrideFileName, prompt.AgentsFileName} {
		p := cfg.CodexHome + string(os.PathSeparator) + name
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			out = append(out, p)
			break
		}
	}
	paths, err := prompt.ProjectDocPaths(prompt.AgentsOptions{Cwd: cfg.Cwd, ProjectRootMarkers: cfg.ProjectRootMarkers,
		FallbackFilenames: cfg.ProjectDocFallbackFilenames})
	if err == nil {
		for _, p := range paths {
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}
