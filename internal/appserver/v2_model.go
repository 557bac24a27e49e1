package appserver

import (
	"context"
	"sort"
	"strconv"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/auth"
)

// model/list pages through the models the host lists for the provider (app.ProviderModels);
// modelProvider/list lists the configured providers.

type reasoningEffortOption struct {
	ReasoningEffort string `json:"reasoningEffort"`
	Description     string `json:"description"`
}

// v2Model is a model/list entry, keys in Codex 0.169's order; the picker metadata is the
// host's (app.CatalogModel's Listing).
type v2Model struct {
	ID                        string                  `json:"id"`
	Model                     string                  `json:"model"`
	Upgrade                   *string                 `json:"upgrade"`
	UpgradeInfo               *modelUpgradeInfo       `json:"upgradeInfo"`
	AvailabilityNux           *modelAvailabilityNux   `json:"availabilityNux"`
	DisplayName               string                  `json:"displayName"`
	Description               string                  `json:"description"`
	ModelSpecialty            *string                 `json:"modelSpecialty"`
	Hidden                    bool                    `json:"hidden"`
	SupportedReasoningEfforts []reasoningEffortOption `json:"supportedReasoningEfforts"`
	DefaultReasoningEffort    string                  `json:"defaultReasoningEffort"`
	InputModalities           []string                `json:"inputModalities"`
	SupportsPersonality       bool                    `json:"supportsPersonality"`
	MultiAgentVersion         *string                 `json:"multiAgentVersion"`
	AdditionalSpeedTiers      []string                `json:"additionalSpeedTiers"`
	ServiceTiers              []modelServiceTier      `json:"serviceTiers"`
	DefaultServiceTier        *string                 `json:"defaultServiceTier"`
	// AvailableAccessPrograms is null: the catalog has no access-program metadata.
	AvailableAccessPrograms *struct{} `json:"availableAccessPrograms"`
	IsDefault               bool      `json:"isDefault"`
}

type modelUpgradeInfo struct {
	Model             string  `json:"model"`
	UpgradeCopy       *string `json:"upgradeCopy"`
	ModelLink         *string `json:"modelLink"`
	MigrationMarkdown *string `json:"migrationMarkdown"`
	RetirementAt      *int64  `json:"retirementAt"`
}

type modelAvailabilityNux struct {
	Message string `json:"message"`
}

type modelServiceTier struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// withListing adds a model's picker metadata.
func withListing(m v2Model, cm app.CatalogModel) v2Model {
	l := cm.Listing
	m.Description = l.Description
	if l.Upgrade != "" {
		m.Upgrade = &l.Upgrade
		m.UpgradeInfo = &modelUpgradeInfo{Model: l.Upgrade, MigrationMarkdown: strPtr(l.MigrationMarkdown)}
	}
	if l.AvailabilityNux != "" {
		m.AvailabilityNux = &modelAvailabilityNux{Message: l.AvailabilityNux}
	}
	m.ModelSpecialty, m.MultiAgentVersion, m.DefaultServiceTier = strPtr(l.Specialty), strPtr(l.MultiAgentVersion), strPtr(l.DefaultServiceTier)
	m.AdditionalSpeedTiers = append([]string{}, l.SpeedTiers...)
	m.ServiceTiers = []modelServiceTier{}
	for _, t := range l.ServiceTiers {
		m.ServiceTiers = append(m.ServiceTiers, modelServiceTier{ID: t.ID, Name: t.Name, Description: t.Description})
	}
	return m
}

// effortText is how a reasoning level is described in pickers (Codex's wording).
var effortText = map[string]string{
	"none":    "No reasoning",
	"minimal": "Fastest responses with minimal reasoning",
	"low":     "Fast responses with lighter reasoning",
	"medium":  "Balances speed and reasoning depth for everyday tasks",
	"high":    "Greater reasoning depth for complex problems",
	"xhigh":   "Extra high reasoning depth for complex problems",
	"max":     "Maximum reasoning depth for the hardest problems",
	"ultra":   "Maximum reasoning with automatic task delegation",
}

func modelList(ctx context.Context, s *Server, p ModelListParams) ModelListResponse {
	models := providerModels(ctx, s)
	sort.SliceStable(models, func(i, j int) bool { return models[i].Priority < models[j].Priority })
	var all []v2Model
	for i, m := range models {
		hidden := m.Visibility == "hide"
		if hidden && (p.IncludeHidden == nil || !*p.IncludeHidden) {
			continue
		}
		efforts := []reasoningEffortOption{}
		for _, e := range m.SupportedReasoningLevels {
			efforts = append(efforts, reasoningEffortOption{ReasoningEffort: e, Description: effortText[e]})
		}
		mods := m.InputModalities
		if mods == nil {
			mods = []string{"text"}
		}
		name := m.DisplayName
		if name == "" {
			name = m.Slug
		}
		all = append(all, withListing(v2Model{ID: m.Slug, Model: m.Slug, DisplayName: name, Hidden: hidden,
			SupportedReasoningEfforts: efforts, DefaultReasoningEffort: orDefault(m.DefaultReasoningLevel, "medium"),
			InputModalities: mods, IsDefault: i == 0}, m))
	}
	start := 0
	if p.Cursor != nil {
		if n, err := strconv.Atoi(*p.Cursor); err == nil && n >= 0 && n <= len(all) {
			start = n
		}
	}
	end := len(all)
	if p.Limit != nil && *p.Limit > 0 && start+int(*p.Limit) < end {
		end = start + int(*p.Limit)
	}
	out := ModelListResponse{Data: all[start:end]}
	if out.Data == nil {
		out.Data = []v2Model{}
	}
	if end < len(all) {
		next := strconv.Itoa(end)
		out.NextCursor = &next
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func providerList(s *Server) ModelProviderListResponse {
	out := ModelProviderListResponse{Data: []ModelProviderSummary{}, CanChangeDefault: true}
	cfg := s.opts.Config
	if cfg == nil {
		return out
	}
	out.DefaultProviderID = cfg.ModelProviderID
	userDefined := map[string]bool{}
	if t, ok := cfg.Effective["model_providers"].(map[string]any); ok {
		for id := range t {
			userDefined[id] = true
		}
	}
	ids := make([]string, 0, len(cfg.ModelProviders))
	for id := range cfg.ModelProviders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := cfg.ModelProviders[id]
		// A provider of the user's config.toml is theirs to edit, as in Codex 0.169
		// (modelProvider/config/write); the built-ins are not.
		if userDefined[id] {
			out.Data = append(out.Data, gatewaySummary(id, p.Name, p.BaseURL, p.EnvKey))
			continue
		}
		settings := providerSettings{Type: "openai"}
		if id != "openai" {
			settings = providerSettings{Type: "customGateway", Auth: &gatewayAuth{Mode: "externallyConfigured", EnvKey: strPtr(p.EnvKey)}}
		}
		out.Data = append(out.Data, ModelProviderSummary{ID: id, Name: p.Name, BaseURL: strPtr(p.BaseURL), Settings: settings})
	}
	return out
}

// providerModels are the models of the configured provider, asked of the host with the
// client the environment's proxy and CA settings call for.
func providerModels(ctx context.Context, s *Server) []app.CatalogModel {
	cfg := s.opts.Config
	if cfg == nil {
		return app.ProviderModels(ctx, nil, s.opts.Getenv, nil, s.logger)
	}
	hc, _ := auth.HTTPClient(s.opts.Getenv)
	if hc == nil {
		hc = s.opts.HTTPClient
	}
	return app.ProviderModels(ctx, cfg, s.opts.Getenv, hc, s.logger)
}

// ModelList answers model/list.
func (a *api) ModelList(ctx context.Context, c *Conn, p ModelListParams) (ModelListResponse, error) {
	s := a.s
	return modelList(ctx, s, p), nil
}

// ModelProviderList answers modelProvider/list.
func (a *api) ModelProviderList(ctx context.Context, c *Conn, _ ModelProviderListParams) (ModelProviderListResponse, error) {
	s := a.s
	return providerList(s), nil
}
