package faceopts

import (
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// CheckFeatureNames refuses --enable/--disable of a flag Codex does not have, as Codex does
// ("Unknown feature flag: NAME"); `-c features.NAME=...` stays a config key with its warning.
func CheckFeatureNames(enable, disable []string) error {
	if err := features.CheckNames(enable...); err != nil {
		return err
	}
	return features.CheckNames(disable...)
}

// FeatureWarnings are the configured feature flags gocodex does not honour.
func FeatureWarnings(cfg *config.Config) []config.Warning {
	var out []config.Warning
	for _, w := range features.Warnings(cfg.Features) {
		out = append(out, config.Warning{Key: []string{"features", w.Name}, Message: w.Message})
	}
	return out
}

// dedupeWarnings keeps the first of warnings that say the same thing about the same key, so a
// key set in two layers (a file and a profile) is reported once per run.
func dedupeWarnings(ws []config.Warning) []config.Warning {
	seen := make(map[string]bool, len(ws))
	out := ws[:0]
	for _, w := range ws {
		k := w.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, w)
	}
	return out
}
