package app

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/oss"
)

// ProviderUsable reports whether a face may switch a thread to the configured model provider
// id: the current one, and any whose credentials are at hand (its env_key set; the OpenAI
// sign-in stored or OPENAI_API_KEY set for one that needs it). The local servers (--oss) are
// usable only when current: nothing says they are running.
func ProviderUsable(cfg *config.Config, id string, getenv func(string) string) bool {
	p, ok := cfg.ModelProviders[id]
	switch {
	case !ok:
		return false
	case id == cfg.ModelProviderID:
		return true
	case id == model.ProviderOllama || id == model.ProviderLMStudio:
		return false
	case p.EnvKey != "":
		return getenv(p.EnvKey) != ""
	case p.RequiresOpenAIAuth:
		return getenv("OPENAI_API_KEY") != "" || fileExists(filepath.Join(cfg.CodexHome, "auth.json"))
	default:
		return p.BaseURL != ""
	}
}

// ServedModels are the models cfg's provider serves, asked of it: a local server's (Ollama,
// LM Studio) own list, any other provider's model list endpoint. hc is the client to ask with.
func ServedModels(ctx context.Context, cfg *config.Config, getenv func(string) string, hc *http.Client) ([]string, error) {
	switch cfg.ModelProviderID {
	case model.ProviderOllama, model.ProviderLMStudio:
		return oss.ListModels(ctx, cfg.ModelProvider, cfg.ModelProviderID, hc)
	default:
		return model.ListServedModels(ctx, cfg.ModelProvider, getenv, hc)
	}
}

// PickableModels are the catalog's models a person may pick (/model), by priority.
func PickableModels() []model.ModelInfo { return model.ListedModels() }

// NeedsSignIn says whether building the host with cfg failed (err) only for want of OpenAI
// credentials: a face that can sign the person in does, and builds the host again.
func NeedsSignIn(cfg *config.Config, err error) bool {
	var missing *model.EnvVarError
	return err != nil && cfg.ModelProvider.RequiresOpenAIAuth && cfg.ModelProvider.EnvKey == "" &&
		errors.As(err, &missing) && missing.Var == "OPENAI_API_KEY"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
