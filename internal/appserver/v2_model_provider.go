package appserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// modelProvider/capabilities/read says what the configured provider can do for a thread;
// modelProvider/config/write adds or edits a custom gateway provider in the user's
// config.toml, as Codex 0.169's settings form does. Bedrock and GCP providers are Codex's
// built-ins that gocodex does not have: writing them is refused with a clear error.

type modelProviderCapabilities struct {
	ImageGeneration bool `json:"imageGeneration"`
	WebSearch       bool `json:"webSearch"`
}

type providerSettingsPatch struct {
	Type       string          `json:"type"`
	ProviderID *string         `json:"providerId"`
	Name       *string         `json:"name"`
	BaseURL    json.RawMessage `json:"baseUrl"`
	EnvKey     json.RawMessage `json:"envKey"`
}

type modelProviderConfigWriteParams struct {
	Settings *providerSettingsPatch `json:"settings"`
}

type modelProviderConfigWriteResponse struct {
	Provider providerSummary `json:"provider"`
}

func registerModelProviderMethods(s *Server) {
	s.Handle("modelProvider/capabilities/read", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (modelProviderCapabilities, error) {
		cfg, err := s.loadThreadConfig(threadOverrides{})
		if err != nil {
			return modelProviderCapabilities{}, err
		}
		// The engine runs the hosted web_search tool on the Responses wire only, and has no
		// image generation tool.
		return modelProviderCapabilities{WebSearch: cfg.ModelProvider.Capabilities().HostedWebSearch}, nil
	}))
	s.Handle("modelProvider/config/write", Typed(func(ctx context.Context, c *Conn, p modelProviderConfigWriteParams) (modelProviderConfigWriteResponse, error) {
		if p.Settings == nil {
			return modelProviderConfigWriteResponse{}, InvalidRequest("Invalid request: missing field `settings`")
		}
		switch p.Settings.Type {
		case "customGateway":
		case "bedrock", "gcp":
			return modelProviderConfigWriteResponse{}, InvalidRequest("provider type `" + p.Settings.Type + "` is not supported by gocodex")
		default:
			return modelProviderConfigWriteResponse{}, InvalidRequest("Invalid request: unknown variant `" + p.Settings.Type + "`, expected one of `customGateway`, `bedrock`, `gcp`")
		}
		return writeGatewayProvider(s, *p.Settings)
	}))
}

var providerIDUnsafe = regexp.MustCompile(`[^a-z0-9_-]+`)

// newProviderID makes an id for a new provider from its name, unique among known ones.
func newProviderID(name string, taken map[string]model.ProviderInfo) string {
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

func writeGatewayProvider(s *Server, p providerSettingsPatch) (modelProviderConfigWriteResponse, error) {
	cfg, err := s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return modelProviderConfigWriteResponse{}, err
	}
	var info model.ProviderInfo
	id := ""
	if p.ProviderID != nil && *p.ProviderID != "" {
		id = *p.ProviderID
		existing, ok := cfg.ModelProviders[id]
		if !ok {
			return modelProviderConfigWriteResponse{}, InvalidRequest("Unknown provider ID.")
		}
		info = existing
	} else {
		if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
			return modelProviderConfigWriteResponse{}, InvalidRequest("a new custom gateway provider needs a `name`")
		}
		id = newProviderID(*p.Name, cfg.ModelProviders)
		info.WireAPI = model.WireResponses
	}
	key := []string{"model_providers", id}
	// Key by key in Codex's order (alphabetical): base_url, env_key, name, wire_api.
	var edits []config.Edit
	for _, f := range []struct {
		raw   json.RawMessage
		field string
		dst   *string
	}{{p.BaseURL, "base_url", &info.BaseURL}, {p.EnvKey, "env_key", &info.EnvKey}} {
		set, clear, v, err := nullableString(f.raw)
		if err != nil {
			return modelProviderConfigWriteResponse{}, err
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
		info.Name = *p.Name
		edits = append(edits, config.Set(append(key, "name"), info.Name))
	}
	if p.ProviderID == nil || *p.ProviderID == "" {
		edits = append(edits, config.Set(append(key, "wire_api"), info.WireAPI))
	}
	if err := config.EditFile(filepath.Join(codexHome(s), "config.toml"), edits...); err != nil {
		return modelProviderConfigWriteResponse{}, internalError(err.Error())
	}
	return modelProviderConfigWriteResponse{Provider: gatewaySummary(id, info)}, nil
}

func gatewaySummary(id string, info model.ProviderInfo) providerSummary {
	sum := providerSummary{CanEdit: true, ID: id, Name: info.Name, Settings: providerSettings{Type: "customGateway", Auth: &gatewayAuth{Mode: "none"}}}
	if info.BaseURL != "" {
		u := info.BaseURL
		sum.BaseURL = &u
	}
	if info.EnvKey != "" {
		k := info.EnvKey
		sum.Settings.Auth = &gatewayAuth{Mode: "environmentVariable", EnvKey: &k}
	}
	return sum
}
