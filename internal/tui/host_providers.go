package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// usableProviders are the model providers /model can switch to: the current one, and each
// configured one whose credentials are at hand (its env_key set; the OpenAI sign-in stored
// or OPENAI_API_KEY set for one that needs it). The local servers (--oss) are offered only
// when current: nothing says they are running. Sorted by id.
func usableProviders(cfg *config.Config, getenv func(string) string) []ProviderChoice {
	var out []ProviderChoice
	for id, p := range cfg.ModelProviders {
		usable := id == cfg.ModelProviderID
		if !usable {
			switch {
			case id == model.ProviderOllama || id == model.ProviderLMStudio:
			case p.EnvKey != "":
				usable = getenv(p.EnvKey) != ""
			case p.RequiresOpenAIAuth:
				usable = getenv("OPENAI_API_KEY") != "" || fileExists(filepath.Join(cfg.CodexHome, "auth.json"))
			default:
				usable = p.BaseURL != ""
			}
		}
		if usable {
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
