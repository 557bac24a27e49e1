package appserver

import (
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// deprecationNotice is deprecationNotice's params.
type deprecationNotice struct {
	Summary string  `json:"summary"`
	Details *string `json:"details"`
}

// sendDeprecations tells c about the deprecated settings a thread's configuration uses, right
// after its thread/started, as Codex 0.169 does at every thread start (a legacy feature flag
// name such as `[features].codex_hooks`).
func sendDeprecations(c *Conn, cfg *config.Config) {
	if cfg == nil {
		return
	}
	for _, d := range features.Deprecations(cfg.Features) {
		details := d.Details
		_ = c.Notify(c.Context(), "deprecationNotice", deprecationNotice{Summary: d.Summary, Details: &details})
	}
}
