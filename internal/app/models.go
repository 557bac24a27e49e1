package app

import (
	"context"
	"log/slog"
	"net/http"
	"sort"
	"time"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// ModelChoice is a model a face offers the person to pick (the ACP face's session models).
type ModelChoice struct {
	Slug, DisplayName, Description string
}

// ListedModels are the catalog's listed models, by priority, as model pickers show them.
func ListedModels() []ModelChoice {
	var out []ModelChoice
	for _, m := range model.ListedModels() {
		out = append(out, ModelChoice{Slug: m.Slug, DisplayName: m.DisplayName, Description: model.ListingOf(m.Slug).Description})
	}
	return out
}

// CatalogModel is a model a face lists (the app-server's model/list): its catalog entry and
// its picker metadata.
type CatalogModel struct {
	model.ModelInfo
	Listing model.Listing
}

func catalogModels(ms []model.ModelInfo) []CatalogModel {
	out := make([]CatalogModel, 0, len(ms))
	for _, m := range ms {
		out = append(out, CatalogModel{ModelInfo: m, Listing: model.ListingOf(m.Slug)})
	}
	return out
}

// ProviderModels are the models of cfg's provider: for OpenAI (or no configuration) the
// catalog; for any other provider what it serves (its model list endpoint, Ollama's tags),
// asked with hc within 10s, with the catalog's metadata where the catalog knows the slug and
// the configured model first. A provider that cannot be asked falls back to the catalog, and
// logger says why.
func ProviderModels(ctx context.Context, cfg *config.Config, getenv func(string) string, hc *http.Client, logger *slog.Logger) []CatalogModel {
	if cfg == nil || cfg.ModelProviderID == model.ProviderOpenAI {
		return catalogModels(model.CatalogModels())
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	served, err := ServedModels(ctx, cfg, getenv, hc)
	if err != nil || len(served) == 0 {
		logger.Warn("model/list: the provider's models could not be listed; listing the catalog", "provider", cfg.ModelProviderID, "err", err)
		return catalogModels(model.CatalogModels())
	}
	sort.SliceStable(served, func(i, j int) bool { return served[i] == cfg.Model && served[j] != cfg.Model })
	out := make([]model.ModelInfo, 0, len(served))
	for i, slug := range served {
		m := model.LookupModel(slug, model.CatalogOverrides{})
		m.Visibility, m.Priority = "list", i
		out = append(out, m)
	}
	return catalogModels(out)
}

// KnownModel says whether the catalog has metadata for slug.
func KnownModel(slug string) bool { return model.LookupModel(slug, model.CatalogOverrides{}).Known }

// ProviderAPIKey is the bearer token of cfg's provider when one is configured or at hand
// (experimental_bearer_token, env_key, then for OpenAI-auth providers CODEX_API_KEY,
// OPENAI_API_KEY and auth.json's key); "" for a provider that needs none.
func ProviderAPIKey(cfg *config.Config, getenv func(string) string) (string, error) {
	return model.ResolveAPIKey(cfg.ModelProvider, model.AuthOptions{Getenv: getenv})
}
