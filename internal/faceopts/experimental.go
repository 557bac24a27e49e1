package faceopts

import (
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// ExperimentalFeature is one of Codex's experimental (beta) flags as a face offers it to be
// switched (the TUI's /experimental).
type ExperimentalFeature struct {
	Name, DisplayName, Description string
	// Enabled is the flag's effective value in cfg.
	Enabled bool
	// Unsupported says how gocodex behaves when the flag is on and gocodex does not honour
	// it ("" when it does).
	Unsupported string
}

// ExperimentalFeatures are Codex's experimental flags in its order, with their values in cfg.
func ExperimentalFeatures(cfg *config.Config) []ExperimentalFeature {
	var out []ExperimentalFeature
	for _, f := range features.All() {
		if f.Stage != features.StageExperimental {
			continue
		}
		_, note := features.Effective(f.Name, true)
		out = append(out, ExperimentalFeature{Name: f.Name, DisplayName: f.DisplayName, Description: f.Description,
			Enabled: features.Enabled(cfg.Features, f.Name), Unsupported: note})
	}
	return out
}
