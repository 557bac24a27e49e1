package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Provider ids of the built-in providers.
const (
	ProviderOpenAI   = "openai"
	ProviderOllama   = "ollama"
	ProviderLMStudio = "lmstudio"

	// Built-ins beyond Codex's; a [model_providers.<id>] table of the same id replaces them.
	ProviderAnthropic  = "anthropic"
	ProviderOpenRouter = "openrouter"
	ProviderGemini     = "gemini"
	ProviderVLLM       = "vllm"
	ProviderAzure      = "azure"
)

// Defaults and caps of the retry and idle settings, as Codex applies them.
const (
	DefaultRequestMaxRetries = 4
	DefaultStreamMaxRetries  = 5
	MaxRetriesCap            = 100
	DefaultStreamIdleTimeout = 300 * time.Second
	DefaultOpenAIBaseURL     = "https://api.openai.com/v1"
	AnthropicBaseURL         = "https://api.anthropic.com/v1"
	defaultOllamaPort        = 11434
	defaultLMStudioPort      = 1234
)

// ProviderInfo is one `[model_providers.<id>]` table of config.toml (and the shape of the
// built-ins). Pointer fields distinguish "unset" from zero.
type ProviderInfo struct {
	Name                    string            `toml:"name" json:"name"`
	BaseURL                 string            `toml:"base_url,omitempty" json:"base_url,omitempty"`
	EnvKey                  string            `toml:"env_key,omitempty" json:"env_key,omitempty"`
	EnvKeyInstructions      string            `toml:"env_key_instructions,omitempty" json:"env_key_instructions,omitempty"`
	ExperimentalBearerToken string            `toml:"experimental_bearer_token,omitempty" json:"experimental_bearer_token,omitempty"`
	WireAPI                 string            `toml:"wire_api,omitempty" json:"wire_api,omitempty"`
	QueryParams             map[string]string `toml:"query_params,omitempty" json:"query_params,omitempty"`
	HTTPHeaders             map[string]string `toml:"http_headers,omitempty" json:"http_headers,omitempty"`
	EnvHTTPHeaders          map[string]string `toml:"env_http_headers,omitempty" json:"env_http_headers,omitempty"`
	RequestMaxRetries       *int64            `toml:"request_max_retries,omitempty" json:"request_max_retries,omitempty"`
	StreamMaxRetries        *int64            `toml:"stream_max_retries,omitempty" json:"stream_max_retries,omitempty"`
	StreamIdleTimeoutMS     *int64            `toml:"stream_idle_timeout_ms,omitempty" json:"stream_idle_timeout_ms,omitempty"`
	WebsocketConnectTimeout *int64            `toml:"websocket_connect_timeout_ms,omitempty" json:"websocket_connect_timeout_ms,omitempty"`
	RequiresOpenAIAuth      bool              `toml:"requires_openai_auth,omitempty" json:"requires_openai_auth,omitempty"`
	SupportsWebsockets      bool              `toml:"supports_websockets,omitempty" json:"supports_websockets,omitempty"`
}

// The names of the wires a provider may speak (`wire_api`), written here once because the
// built-in providers name them. Codex 0.169 speaks only the first; gocodex keeps Chat
// Completions, which Codex removed, and adds Anthropic's Messages API. Each wire's package
// registers its descriptor (wire.go).
const (
	WireResponses = "responses"
	WireChat      = "chat"
	WireAnthropic = "anthropic"
)

// ErrNotResponsesWire is NewClient's refusal of a provider on another wire: the host picks the
// client of the provider's wire (internal/model/chat, internal/model/anthropic).
var ErrNotResponsesWire = errors.New("the Responses client cannot speak this provider's wire_api")

// Validate rejects settings no client can honour: a wire_api no registered wire speaks.
func (p ProviderInfo) Validate() error {
	_, err := p.WireDescriptor()
	return err
}

// Wire is the provider's wire_api, "responses" when unset.
func (p ProviderInfo) Wire() string {
	if p.WireAPI == "" {
		return WireResponses
	}
	return p.WireAPI
}

// RequestRetries is request_max_retries with Codex's default and cap.
func (p ProviderInfo) RequestRetries() int {
	return capRetries(p.RequestMaxRetries, DefaultRequestMaxRetries)
}

// StreamRetries is stream_max_retries with Codex's default and cap.
func (p ProviderInfo) StreamRetries() int {
	return capRetries(p.StreamMaxRetries, DefaultStreamMaxRetries)
}

// StreamIdleTimeout is stream_idle_timeout_ms with the 300 s default.
func (p ProviderInfo) StreamIdleTimeout() time.Duration {
	if p.StreamIdleTimeoutMS == nil || *p.StreamIdleTimeoutMS <= 0 {
		return DefaultStreamIdleTimeout
	}
	return time.Duration(*p.StreamIdleTimeoutMS) * time.Millisecond
}

func capRetries(v *int64, def int) int {
	if v == nil {
		return def
	}
	n := *v
	if n < 0 {
		n = 0
	}
	if n > MaxRetriesCap {
		n = MaxRetriesCap
	}
	return int(n)
}

// ResponsesURL is `{base_url}/responses` with query_params appended (sorted by key so the URL
// is stable).
func (p ProviderInfo) ResponsesURL() string {
	return p.endpointURL("responses")
}

func (p ProviderInfo) endpointURL(path string) string {
	base := strings.TrimRight(p.BaseURL, "/")
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	u := base + "/" + path
	if len(p.QueryParams) == 0 {
		return u
	}
	keys := sortedKeys(p.QueryParams)
	var b strings.Builder
	b.WriteString(u)
	for i, k := range keys {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(queryEscape(k))
		b.WriteByte('=')
		b.WriteString(queryEscape(p.QueryParams[k]))
	}
	return b.String()
}

// BuiltinOptions are the inputs the built-in providers depend on.
type BuiltinOptions struct {
	// Getenv reads CODEX_OSS_PORT and CODEX_OSS_BASE_URL; nil means os.Getenv is not consulted.
	Getenv func(string) string
	// OpenAIBaseURL is the `openai_base_url` config key; empty keeps the default.
	OpenAIBaseURL string
	// Version is sent as the `version` header by the OpenAI provider.
	Version string
}

// BuiltinProviders returns the providers every config starts with; `[model_providers.<id>]`
// tables add to them (a table may not replace a built-in id).
func BuiltinProviders(o BuiltinOptions) map[string]ProviderInfo {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	base := o.OpenAIBaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	version := o.Version
	if version == "" {
		version = CodexVersion
	}
	return map[string]ProviderInfo{
		ProviderOpenAI: {
			Name:               "OpenAI",
			BaseURL:            base,
			WireAPI:            WireResponses,
			HTTPHeaders:        map[string]string{"version": version},
			EnvHTTPHeaders:     map[string]string{"OpenAI-Organization": "OPENAI_ORGANIZATION", "OpenAI-Project": "OPENAI_PROJECT"},
			RequiresOpenAIAuth: true,
			SupportsWebsockets: true,
		},
		ProviderOllama:   ossProvider(getenv, defaultOllamaPort),
		ProviderLMStudio: ossProvider(getenv, defaultLMStudioPort),

		ProviderAnthropic: {Name: "Anthropic", BaseURL: AnthropicBaseURL, WireAPI: WireAnthropic,
			EnvKey: "ANTHROPIC_API_KEY", EnvKeyInstructions: "Create a key at https://console.anthropic.com/settings/keys."},
		ProviderOpenRouter: {Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", WireAPI: WireChat,
			EnvKey: "OPENROUTER_API_KEY", EnvKeyInstructions: "Create a key at https://openrouter.ai/keys."},
		ProviderGemini: {Name: "Gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", WireAPI: WireChat,
			EnvKey: "GEMINI_API_KEY", EnvKeyInstructions: "Create a key at https://aistudio.google.com/apikey."},
		ProviderVLLM: {Name: "vLLM", BaseURL: vllmBase(getenv), WireAPI: WireChat},
		// Azure OpenAI: the model is the deployment name; the resource comes from
		// AZURE_OPENAI_ENDPOINT (or a [model_providers.azure] table's base_url).
		ProviderAzure: {Name: "Azure", BaseURL: azureBase(getenv), WireAPI: WireResponses,
			EnvKey: "AZURE_OPENAI_API_KEY", EnvHTTPHeaders: map[string]string{"api-key": "AZURE_OPENAI_API_KEY"},
			QueryParams: map[string]string{"api-version": AzureAPIVersion}},
	}
}

// AzureAPIVersion is the api-version the built-in azure provider sends (a table may set its own).
const AzureAPIVersion = "2025-04-01-preview"

// azureBase is {AZURE_OPENAI_ENDPOINT}/openai, or "" when the endpoint is not set (the host
// then refuses the provider with a message saying so).
func azureBase(getenv func(string) string) string {
	v := strings.TrimRight(getenv("AZURE_OPENAI_ENDPOINT"), "/")
	if v == "" {
		return ""
	}
	if strings.HasSuffix(v, "/openai") || strings.Contains(v, "/openai/") {
		return v
	}
	return v + "/openai"
}

// IsAzure reports an Azure OpenAI endpoint, where Codex sends `store: true` (Azure keeps
// Responses items server-side).
func (p ProviderInfo) IsAzure() bool {
	if strings.EqualFold(p.Name, "azure") {
		return true
	}
	base := strings.ToLower(p.BaseURL)
	for _, marker := range []string{"openai.azure.", "cognitiveservices.azure.", "aoai.azure.", "azure-api.", "azurefd.", "windows.net/openai"} {
		if strings.Contains(base, marker) {
			return true
		}
	}
	return false
}

// Overridable reports whether a [model_providers.<id>] table may replace the built-in id:
// gocodex's additions may be, Codex's own (openai, ollama, lmstudio) are reserved as in Codex.
func Overridable(id string) bool {
	switch id {
	case ProviderAnthropic, ProviderOpenRouter, ProviderGemini, ProviderVLLM, ProviderAzure:
		return true
	}
	return false
}

// vllmBase is a local vLLM server's OpenAI-compatible endpoint (VLLM_BASE_URL, else port 8000).
func vllmBase(getenv func(string) string) string {
	if v := getenv("VLLM_BASE_URL"); v != "" {
		return v
	}
	return "http://localhost:8000/v1"
}

func ossProvider(getenv func(string) string, defaultPort int) ProviderInfo {
	base := getenv("CODEX_OSS_BASE_URL")
	if base == "" {
		port := fmt.Sprint(defaultPort)
		if v := strings.TrimSpace(getenv("CODEX_OSS_PORT")); v != "" {
			port = v
		}
		base = "http://" + net.JoinHostPort("localhost", port) + "/v1"
	}
	return ProviderInfo{Name: "gpt-oss", BaseURL: base, WireAPI: WireResponses}
}

// EnvVarError is a missing environment variable that holds a credential.
type EnvVarError struct {
	Var          string
	Instructions string
}

func (e *EnvVarError) Error() string {
	msg := "Missing environment variable: `" + e.Var + "`."
	if e.Instructions != "" {
		msg += " " + e.Instructions
	}
	return msg
}

// AuthOptions are the places an API key may come from.
type AuthOptions struct {
	Getenv func(string) string
	// CodexHome, when set, lets an OpenAI-auth provider read OPENAI_API_KEY from
	// $CODEX_HOME/auth.json.
	CodexHome string
}

// ResolveAPIKey finds the bearer token for p: experimental_bearer_token, then env_key (which
// must be set and non-empty), then for OpenAI-auth providers CODEX_API_KEY, OPENAI_API_KEY
// and auth.json. Providers with neither (local OSS servers) get "" and no error.
func ResolveAPIKey(p ProviderInfo, o AuthOptions) (string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if p.ExperimentalBearerToken != "" {
		return p.ExperimentalBearerToken, nil
	}
	if p.EnvKey != "" {
		if v := strings.TrimSpace(getenv(p.EnvKey)); v != "" {
			return v, nil
		}
		return "", &EnvVarError{Var: p.EnvKey, Instructions: p.EnvKeyInstructions}
	}
	if !p.RequiresOpenAIAuth {
		return "", nil
	}
	for _, k := range []string{"CODEX_API_KEY", "OPENAI_API_KEY"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v, nil
		}
	}
	if o.CodexHome != "" {
		if key, err := readAuthFileKey(filepath.Join(o.CodexHome, "auth.json")); err != nil {
			return "", err
		} else if key != "" {
			return key, nil
		}
	}
	return "", &EnvVarError{Var: "OPENAI_API_KEY",
		Instructions: "Set OPENAI_API_KEY (or CODEX_API_KEY) to your OpenAI API key, or run `gocodex login`."}
}

func readAuthFileKey(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var f struct {
		Key *string `json:"OPENAI_API_KEY"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return "", fmt.Errorf("parse %s: %w", path, err)
	}
	if f.Key == nil {
		return "", nil
	}
	return *f.Key, nil
}
