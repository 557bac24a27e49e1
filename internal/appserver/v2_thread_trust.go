package appserver

import (
	"path/filepath"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// A client that starts a thread in a folder (thread/start with a cwd) under a sandbox that
// may write there has, for Codex 0.169, decided to trust it: Codex records the project (its
// Git repository's root, else the folder) as trusted in config.toml when config.toml has no
// trust decision for it yet, so its own TUI does not ask again. Not on resume or fork, not
// for a read-only sandbox, and an "untrusted" entry stays.

// trustStartedProject records cfg's project as trusted when thread/start is such a start.
// A config.toml that cannot be written leaves the thread running; the log says why.
func (r *threads) trustStartedProject(p threadStartParams, cfg *config.Config) {
	if p.Cwd == nil || cfg == nil || cfg.TrustLevel != "" || cfg.SandboxPolicy.Mode == protocol.SandboxReadOnly {
		return
	}
	root := cfg.ProjectRoot
	if root == "" {
		root = cfg.Cwd
	}
	path := filepath.Join(cfg.CodexHome, "config.toml")
	if err := config.EditFile(path, config.Set([]string{"projects", root, "trust_level"}, config.TrustTrusted)); err != nil {
		r.srv.logger.Warn("thread/start: the project's trust was not saved", "project", root, "err", err)
	}
}
