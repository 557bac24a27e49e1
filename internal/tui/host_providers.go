package tui

import (
	"fmt"
	"sort"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
)

// usableProviders are the model providers /model can switch to (app.ProviderUsable), sorted
// by id.
func usableProviders(cfg *config.Config, getenv func(string) string) []ProviderChoice {
	var out []ProviderChoice
	for id, p := range cfg.ModelProviders {
		if app.ProviderUsable(cfg, id, getenv) {
			out = append(out, ProviderChoice{ID: id, Name: p.Name})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// withProvider is cfg with another of its providers.
func withProvider(cfg *config.Config, id string) (*config.Config, error) {
	p, ok := cfg.ModelProviders[id]
	if !ok {
		return nil, fmt.Errorf("no model provider %q is configured", id)
	}
	c := *cfg
	c.ModelProviderID, c.ModelProvider = id, p
	return &c, nil
}
