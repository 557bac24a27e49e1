package model_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestBuiltinProviders(t *testing.T) {
	tests := []struct {
		name string
		o    model.BuiltinOptions
		want map[string]string // id -> base_url
	}{
		{"defaults", model.BuiltinOptions{}, map[string]string{
			"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434/v1", "lmstudio": "http://localhost:1234/v1"}},
		{"openai_base_url", model.BuiltinOptions{OpenAIBaseURL: "http://127.0.0.1:9/v1"}, map[string]string{
			"openai": "http://127.0.0.1:9/v1", "ollama": "http://localhost:11434/v1", "lmstudio": "http://localhost:1234/v1"}},
		{"CODEX_OSS_PORT", model.BuiltinOptions{Getenv: env(map[string]string{"CODEX_OSS_PORT": "5555"})}, map[string]string{
			"openai": "https://api.openai.com/v1", "ollama": "http://localhost:5555/v1", "lmstudio": "http://localhost:5555/v1"}},
		{"CODEX_OSS_BASE_URL wins", model.BuiltinOptions{Getenv: env(map[string]string{"CODEX_OSS_PORT": "5555", "CODEX_OSS_BASE_URL": "http://h:1/v1"})},
			map[string]string{"openai": "https://api.openai.com/v1", "ollama": "http://h:1/v1", "lmstudio": "http://h:1/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// gocodex's own built-ins (issue 15) are the same in every case.
			tt.want["anthropic"] = "https://api.anthropic.com/v1"
			tt.want["openrouter"] = "https://openrouter.ai/api/v1"
			tt.want["gemini"] = "https://generativelanguage.googleapis.com/v1beta/openai"
			tt.want["vllm"] = "http://localhost:8000/v1"
			tt.want["azure"] = ""
			got := map[string]string{}
			for id, p := range model.BuiltinProviders(tt.o) {
				got[id] = p.BaseURL
				if err := p.Validate(); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
	openai := model.BuiltinProviders(model.BuiltinOptions{})["openai"]
	if openai.Name != "OpenAI" || !openai.RequiresOpenAIAuth || !openai.SupportsWebsockets || openai.HTTPHeaders["version"] != model.CodexVersion {
		t.Errorf("openai provider = %+v", openai)
	}
	if oss := model.BuiltinProviders(model.BuiltinOptions{})["ollama"]; oss.Name != "gpt-oss" {
		t.Errorf("ollama name = %q", oss.Name)
	}
}

func TestResolveAPIKey(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "auth.json"), []byte(`{"OPENAI_API_KEY":"sk-file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	openai := model.BuiltinProviders(model.BuiltinOptions{})["openai"]
	mock := model.ProviderInfo{Name: "Mock", EnvKey: "MOCK_API_KEY", EnvKeyInstructions: "Export it."}
	tests := []struct {
		name    string
		p       model.ProviderInfo
		o       model.AuthOptions
		want    string
		wantErr string
	}{
		{"env_key set", mock, model.AuthOptions{Getenv: env(map[string]string{"MOCK_API_KEY": "k"})}, "k", ""},
		{"env_key missing names the variable", mock, model.AuthOptions{Getenv: env(nil)}, "",
			"Missing environment variable: `MOCK_API_KEY`. Export it."},
		{"env_key empty counts as missing", mock, model.AuthOptions{Getenv: env(map[string]string{"MOCK_API_KEY": " "})}, "",
			"Missing environment variable: `MOCK_API_KEY`. Export it."},
		{"bearer token", model.ProviderInfo{ExperimentalBearerToken: "tok", EnvKey: "X"}, model.AuthOptions{}, "tok", ""},
		{"CODEX_API_KEY first", openai, model.AuthOptions{Getenv: env(map[string]string{"CODEX_API_KEY": "c", "OPENAI_API_KEY": "o"})}, "c", ""},
		{"OPENAI_API_KEY", openai, model.AuthOptions{Getenv: env(map[string]string{"OPENAI_API_KEY": "o"})}, "o", ""},
		{"auth.json", openai, model.AuthOptions{Getenv: env(nil), CodexHome: home}, "sk-file", ""},
		{"openai without any key", openai, model.AuthOptions{Getenv: env(nil), CodexHome: t.TempDir()}, "",
			"Missing environment variable: `OPENAI_API_KEY`. Set OPENAI_API_KEY (or CODEX_API_KEY) to your OpenAI API key, or run `gocodex login`."},
		{"local provider needs no key", model.BuiltinProviders(model.BuiltinOptions{})["ollama"], model.AuthOptions{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := model.ResolveAPIKey(tt.p, tt.o)
			if tt.wantErr != "" {
				var ev *model.EnvVarError
				if !errors.As(err, &ev) || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestProviderSettings(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	tests := []struct {
		name string
		p    model.ProviderInfo
		want []any
	}{
		{"defaults", model.ProviderInfo{}, []any{4, 5, 300 * time.Second, "https://api.openai.com/v1/responses"}},
		{"set", model.ProviderInfo{RequestMaxRetries: i(0), StreamMaxRetries: i(7), StreamIdleTimeoutMS: i(1500), BaseURL: "http://x/v1/"},
			[]any{0, 7, 1500 * time.Millisecond, "http://x/v1/responses"}},
		{"capped", model.ProviderInfo{RequestMaxRetries: i(1000), StreamMaxRetries: i(-3)}, []any{100, 0, 300 * time.Second, "https://api.openai.com/v1/responses"}},
	}
	for _, tt := range tests {
		got := []any{tt.p.RequestRetries(), tt.p.StreamRetries(), tt.p.StreamIdleTimeout(), tt.p.ResponsesURL()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: %s", tt.name, diff)
		}
	}
	// Codex 0.169 refuses the chat wire; gocodex speaks it (issue 15), and Anthropic's.
	for _, wire := range []string{"chat", "anthropic", "responses", ""} {
		if err := (model.ProviderInfo{WireAPI: wire}).Validate(); err != nil {
			t.Errorf("%q: %v", wire, err)
		}
	}
	if err := (model.ProviderInfo{WireAPI: "grpc"}).Validate(); err == nil {
		t.Error("unknown wire_api accepted")
	}
}

func TestParseTryAgainViaErrors(t *testing.T) {
	// parseTryAgain is exercised through response.failed in TestFaults; here the units.
	for _, tt := range []struct {
		msg  string
		want time.Duration
	}{
		{"Please try again in 11.054s.", 11054 * time.Millisecond},
		{"Please TRY AGAIN IN 250ms", 250 * time.Millisecond},
		{"try again in 3 seconds", 3 * time.Second},
		{"try again later", 0},
	} {
		if got := model.ParseTryAgain(tt.msg); got != tt.want {
			t.Errorf("%q: got %v want %v", tt.msg, got, tt.want)
		}
	}
}
