package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// An -i/--image file that cannot be read is refused before the UI starts; a relative path
// is the thread's (-C).
func TestCheckImages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckImages(dir, []string{"a.png", filepath.Join(dir, "a.png")}); err != nil {
		t.Errorf("readable images refused: %v", err)
	}
	for _, bad := range []string{"nope.png", "."} {
		err := CheckImages(dir, []string{"a.png", bad})
		if err == nil || !strings.Contains(err.Error(), "cannot attach image "+bad) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}

// /model offers the current provider and the configured ones whose credentials are at
// hand; the local servers only when current.
func TestUsableProviders(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{CodexHome: home, ModelProviderID: "mock", ModelProviders: map[string]model.ProviderInfo{
		"mock":     {Name: "Mock", EnvKey: "MOCK_KEY"},
		"other":    {Name: "Other", EnvKey: "OTHER_KEY"},
		"missing":  {Name: "Missing", EnvKey: "MISSING_KEY"},
		"openai":   {Name: "OpenAI", RequiresOpenAIAuth: true},
		"ollama":   {Name: "Ollama", BaseURL: "http://localhost:11434/v1"},
		"internal": {Name: "Internal", BaseURL: "http://llm.internal/v1"},
	}}
	env := map[string]string{"OTHER_KEY": "x"}
	got := usableProviders(cfg, func(k string) string { return env[k] })
	want := []ProviderChoice{{ID: "internal", Name: "Internal"}, {ID: "mock", Name: "Mock"}, {ID: "other", Name: "Other"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	env["OPENAI_API_KEY"] = "sk"
	if got := usableProviders(cfg, func(k string) string { return env[k] }); len(got) != 4 || got[2].ID != "openai" {
		t.Errorf("with OPENAI_API_KEY: %v", got)
	}
	if _, err := withProvider(cfg, "nope"); err == nil {
		t.Error("an unknown provider was accepted")
	}
}

// [tui] alternate_screen, as Codex spells it: only "always" (or true) leaves inline mode.
func TestWantsAltScreen(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  bool
	}{{nil, false}, {"always", true}, {"never", false}, {"auto", false}, {true, true}, {false, false}} {
		cfg := &config.Config{Effective: map[string]any{}}
		if tc.value != nil {
			cfg.Effective["tui"] = map[string]any{"alternate_screen": tc.value}
		}
		if got := wantsAltScreen(cfg); got != tc.want {
			t.Errorf("alternate_screen = %v: %v, want %v", tc.value, got, tc.want)
		}
	}
}
