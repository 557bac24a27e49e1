package appserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// modelProvider/capabilities/read says what the configured provider can do for a thread;
// modelProvider/config/write adds or edits a custom gateway provider in the user's
// config.toml, as Codex 0.169's settings form does. Bedrock and GCP providers are Codex's
// built-ins that gocodex does not have: writing them is refused with a clear error.

type providerSettingsPatch struct {
	Type       string          `json:"type"`
	ProviderID *string         `json:"providerId"`
	Name       *string         `json:"name"`
	BaseURL    json.RawMessage `json:"baseUrl"`
	EnvKey     json.RawMessage `json:"envKey"`
}

var providerIDUnsafe = regexp.MustCompile(`[^a-z0-9_-]+`)

// newProviderID makes an id for a new provider from its name, unique among known ones.
func newProviderID[P any](name string, taken map[string]P) string {
	base := strings.Trim(providerIDUnsafe.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if base == "" {
		base = "custom"
	}
	id := base
	for n := 2; ; n++ {
		if _, ok := taken[id]; !ok {
			return id
		}
		id = base + "-" + strconv.Itoa(n)
	}
}

// nullableString reads a patch field: absent (keep), null (clear) or a string (set).
func nullableString(raw json.RawMessage) (set bool, clear bool, v string, err error) {
	if len(raw) == 0 {
		return false, false, "", nil
	}
	if string(raw) == "null" {
		return false, true, "", nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, false, "", InvalidRequest("Invalid request: " + err.Error())
	}
	return true, false, v, nil
}

func writeGatewayProvider(s *Server, p providerSettingsPatch) (ModelProviderConfigWriteResponse, error) {
	cfg, err := s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return ModelProviderConfigWriteResponse{}, err
	}
	var name, baseURL, envKey string
	id := ""
	if p.ProviderID != nil && *p.ProviderID != "" {
		id = *p.ProviderID
		existing, ok := cfg.ModelProviders[id]
		if !ok {
			return ModelProviderConfigWriteResponse{}, InvalidRequest("Unknown provider ID.")
		}
		name, baseURL, envKey = existing.Name, existing.BaseURL, existing.EnvKey
	} else {
		if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
			return ModelProviderConfigWriteResponse{}, InvalidRequest("a new custom gateway provider needs a `name`")
		}
		id = newProviderID(*p.Name, cfg.ModelProviders)
	}
	key := []string{"model_providers", id}
	// Key by key in Codex's order (alphabetical): base_url, env_key, name, wire_api.
	var edits []config.Edit
	for _, f := range []struct {
		raw   json.RawMessage
		field string
		dst   *string
	}{{p.BaseURL, "base_url", &baseURL}, {p.EnvKey, "env_key", &envKey}} {
		set, clear, v, err := nullableString(f.raw)
		if err != nil {
			return ModelProviderConfigWriteResponse{}, err
		}
		switch {
		case set:
			*f.dst = v
			edits = append(edits, config.Set(append(key, f.field), v))
		case clear:
			*f.dst = ""
			edits = append(edits, config.Remove(append(key, f.field)))
		}
	}
	if p.Name != nil {
		name = *p.Name
		edits = append(edits, config.Set(append(key, "name"), name))
	}
	if p.ProviderID == nil || *p.ProviderID == "" {
		// A new gateway speaks the Responses API, as Codex's settings form writes it.
		edits = append(edits, config.Set(append(key, "wire_api"), "responses"))
	}
	if err := config.EditFile(filepath.Join(codexHome(s), "config.toml"), edits...); err != nil {
		return ModelProviderConfigWriteResponse{}, internalError(err.Error())
	}
	return ModelProviderConfigWriteResponse{Provider: gatewaySummary(id, name, baseURL, envKey)}, nil
}

// gatewaySummary is a user-defined provider as modelProvider/list and config/write show it.
func gatewaySummary(id, name, baseURL, envKey string) ModelProviderSummary {
	sum := ModelProviderSummary{CanEdit: true, ID: id, Name: name, Settings: providerSettings{Type: "customGateway", Auth: &gatewayAuth{Mode: "none"}}}
	if baseURL != "" {
		u := baseURL
		sum.BaseURL = &u
	}
	if envKey != "" {
		k := envKey
		sum.Settings.Auth = &gatewayAuth{Mode: "environmentVariable", EnvKey: &k}
	}
	return sum
}

// ModelProviderCapabilitiesRead answers modelProvider/capabilities/read.
func (a *api) ModelProviderCapabilitiesRead(ctx context.Context, c *Conn, _ ModelProviderCapabilitiesReadParams) (ModelProviderCapabilitiesReadResponse, error) {
	s := a.s
	cfg, err := s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return ModelProviderCapabilitiesReadResponse{}, err
	}
	// The wire says whether the provider runs the hosted web_search tool; the engine has no
	// image generation tool.
	return ModelProviderCapabilitiesReadResponse{WebSearch: cfg.ModelProvider.Capabilities().HostedWebSearch}, nil
}

// ModelProviderConfigWrite answers modelProvider/config/write.
func (a *api) ModelProviderConfigWrite(ctx context.Context, c *Conn, p ModelProviderConfigWriteParams) (ModelProviderConfigWriteResponse, error) {
	s := a.s
	if p.Settings == nil {
		return ModelProviderConfigWriteResponse{}, InvalidRequest("Invalid request: missing field `settings`")
	}
	switch p.Settings.Type {
	case "customGateway":
	case "bedrock", "gcp":
		return ModelProviderConfigWriteResponse{}, InvalidRequest("provider type `" + p.Settings.Type + "` is not supported by gocodex")
	default:
		return ModelProviderConfigWriteResponse{}, InvalidRequest("Invalid request: unknown variant `" + p.Settings.Type + "`, expected one of `customGateway`, `bedrock`, `gcp`")
	}
	return writeGatewayProvider(s, *p.Settings)
}

// ModelProviderDefaultSet answers modelProvider/default/set (new in Codex 0.171): a
// configured provider becomes the default of new threads and model lists, written to
// config.toml as model_provider, and the answer is the write's; an unknown provider is
// refused in Codex 0.171's words (TestAppServerModelProviderDefaultSet).
func (a *api) ModelProviderDefaultSet(ctx context.Context, c *Conn, p ModelProviderDefaultSetParams) (ConfigWriteResponse, error) {
	cfg, err := a.s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return ConfigWriteResponse{}, err
	}
	if _, ok := cfg.ModelProviders[p.ProviderID]; !ok {
		return ConfigWriteResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Model provider `" + p.ProviderID + "` is not configured.",
			Data: json.RawMessage(`{"config_write_error_code":"configValidationError"}`)}
	}
	value, _ := json.Marshal(p.ProviderID)
	return configWrite(a.s, nil, nil, []ConfigEdit{{KeyPath: "model_provider", Value: value, MergeStrategy: "replace"}})
}
