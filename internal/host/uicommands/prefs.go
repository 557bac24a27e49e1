// Package uicommands is what the terminal UI's own commands need from the host: the
// [tui] settings /statusline and /title keep in config.toml, the service tier /fast keeps,
// signing out (/logout), the feedback ZIP (/feedback) and MCP OAuth sign-in (/mcp login,
// `mcp login`). The keys and files are Codex 0.171's (observed), so a person's setup
// carries over both ways.
package uicommands

import (
	"path/filepath"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// Prefs are the UI settings read from config.toml; a nil list means the key is absent and
// the UI uses Codex's default.
type Prefs struct {
	StatusLine          []string
	StatusLineUseColors bool
	TerminalTitle       []string
	ServiceTier         string
	// Presets are tui.presets: slot ("1"…"9", "0") to the text it sends.
	Presets map[string]Preset
}

// Preset is one saved prompt or slash command (tui.presets.<slot>).
type Preset struct {
	Input, Label string
}

// ReadPrefs takes the UI settings from the loaded configuration.
func ReadPrefs(cfg *config.Config) Prefs {
	p := Prefs{StatusLineUseColors: true, ServiceTier: cfg.ServiceTier}
	t, _ := cfg.Effective["tui"].(map[string]any)
	p.StatusLine = stringList(t["status_line"])
	p.TerminalTitle = stringList(t["terminal_title"])
	if presets, ok := t["presets"].(map[string]any); ok {
		p.Presets = map[string]Preset{}
		for slot, v := range presets {
			e, _ := v.(map[string]any)
			in, _ := e["input"].(string)
			label, _ := e["label"].(string)
			if in != "" {
				p.Presets[slot] = Preset{Input: in, Label: label}
			}
		}
	}
	if b, ok := t["status_line_use_colors"].(bool); ok {
		p.StatusLineUseColors = b
	}
	return p
}

func stringList(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := []string{}
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func configPath(codexHome string) string { return filepath.Join(codexHome, "config.toml") }

// SaveStatusLine writes tui.status_line and tui.status_line_use_colors, as Codex's
// /statusline does.
func SaveStatusLine(codexHome string, items []string, useColors bool) error {
	return config.EditFile(configPath(codexHome),
		config.Set([]string{"tui", "status_line"}, nonNil(items)),
		config.Set([]string{"tui", "status_line_use_colors"}, useColors))
}

// SaveTerminalTitle writes tui.terminal_title, as Codex's /title does.
func SaveTerminalTitle(codexHome string, items []string) error {
	return config.EditFile(configPath(codexHome), config.Set([]string{"tui", "terminal_title"}, nonNil(items)))
}

// SaveServiceTier writes the top-level service_tier ("fast" or "default"), as Codex's
// /fast does.
func SaveServiceTier(codexHome, tier string) error {
	return config.EditFile(configPath(codexHome), config.Set([]string{"service_tier"}, tier))
}

func nonNil(items []string) []string {
	if items == nil {
		return []string{}
	}
	return items
}

// FastTier says whether the model offers priority processing ("Fast") and what it gives.
// The catalog knows the OpenAI models' tiers; a model it does not list has none.
func FastTier(slug string) (string, bool) {
	for _, t := range model.ListingOf(slug).ServiceTiers {
		if t.ID == "priority" {
			return t.Description, true
		}
	}
	return "", false
}

// SavePreset writes tui.presets.<slot> (input, label), as Codex's /presets does; an empty
// input removes the slot.
func SavePreset(codexHome, slot string, p Preset) error {
	if p.Input == "" {
		return config.EditFile(configPath(codexHome), config.Remove([]string{"tui", "presets", slot}))
	}
	return config.EditFile(configPath(codexHome), config.Set([]string{"tui", "presets", slot},
		map[string]any{"input": p.Input, "label": p.Label}))
}
