package faceopts

import (
	"github.com/gocodex/gocodex/internal/config"
)

// Load is the one configuration load on every face's path at start-up; per-thread
// overrides are loaded by the host (app-server's thread/start, mcp-server's codex tool).
func Load(lo config.LoadOptions) (*config.Config, []config.Warning, error) {
	return config.Load(lo)
}

// SandboxChosen reports whether the configuration (not a default) chose the sandbox.
func SandboxChosen(cfg *config.Config) bool {
	_, ok := cfg.Effective["sandbox_mode"]
	return ok
}

// ApprovalChosen reports whether the configuration (not a default) chose the approval policy.
func ApprovalChosen(cfg *config.Config) bool {
	_, ok := cfg.Effective["approval_policy"]
	return ok
}
