package appserver

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/features"
)

// Keys the configuration has and neither gocodex nor Codex knows are reported to app-server
// clients in Codex 0.169's words: one configWarning after initialize and one warning (with
// the thread's id) at each thread start, listing up to three keys, sorted, then how many more:
//
//	Codex is ignoring 4 unrecognized configuration settings. Check for typos or deprecated settings.
//	  user (/home/me/.codex/config.toml): `features.bogus` is ignored.
//	  ...
//	  ... and 1 more ignored settings.

const unknownSettingsShown = 3

// UnknownSettingsMessage is Codex's text for the unknown keys among ws ("" when there are
// none), and the other warnings.
func UnknownSettingsMessage(ws []config.Warning, codexHome string) (string, []config.Warning) {
	type entry struct{ layer, file, key string }
	var unknown []entry
	var rest []config.Warning
	for _, w := range ws {
		if !w.Unknown {
			rest = append(rest, w)
			continue
		}
		layer := "project"
		if codexHome != "" && filepath.Clean(w.File) == filepath.Join(codexHome, "config.toml") {
			layer = "user"
		}
		unknown = append(unknown, entry{layer, w.File, strings.Join(w.Key, ".")})
	}
	if len(unknown) == 0 {
		return "", rest
	}
	sort.SliceStable(unknown, func(i, j int) bool { return unknown[i].key < unknown[j].key })
	plural := "s"
	if len(unknown) == 1 {
		plural = ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Codex is ignoring %d unrecognized configuration setting%s. Check for typos or deprecated settings.", len(unknown), plural)
	for i, u := range unknown {
		if i == unknownSettingsShown {
			fmt.Fprintf(&b, "\n  ... and %d more ignored settings.", len(unknown)-unknownSettingsShown)
			break
		}
		fmt.Fprintf(&b, "\n  %s (%s): `%s` is ignored.", u.layer, u.file, u.key)
	}
	return b.String(), rest
}

// UnknownSettingsWarning is the configWarning a client hears after initialize about the
// unknown keys (ok false when there are none), and the other warnings.
func UnknownSettingsWarning(ws []config.Warning, codexHome string) (ConfigWarningParams, bool, []config.Warning) {
	msg, rest := UnknownSettingsMessage(ws, codexHome)
	return ConfigWarningParams{Summary: msg}, msg != "", rest
}

// sendUnknownSettings sends the warnings of a thread's start, in Codex 0.169's words and order:
// its configuration's unknown keys, then the under-development features it turns on (unless
// suppress_unstable_features_warning is set).
func sendUnknownSettings(c *Conn, lt *loadedThread) {
	id := lt.id
	warn := func(msg string) {
		_ = c.Notify(c.Context(), "warning", struct {
			ThreadID *string `json:"threadId"`
			Message  string  `json:"message"`
		}{&id, msg})
	}
	if lt.unknownSettings != "" {
		warn(lt.unknownSettings)
	}
	if cfg := lt.cfg; cfg != nil && cfg.Effective["suppress_unstable_features_warning"] != true {
		if names := features.UnderDevelopmentEnabled(cfg.Features); len(names) > 0 {
			warn("Under-development features enabled: " + strings.Join(names, ", ") +
				". Under-development features are incomplete and may behave unpredictably. To suppress this warning, set `suppress_unstable_features_warning = true` in " +
				filepath.Join(cfg.CodexHome, "config.toml") + ".")
		}
	}
}
