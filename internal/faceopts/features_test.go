package faceopts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/features"
)

// Features come from config.toml, the profile's file and --enable/--disable, later ones
// winning; a flag gocodex cannot honour is one warning, however many layers set it.
func TestFeaturesFromEveryLayer(t *testing.T) {
	home := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("config.toml", "[features]\nmemories = true\ntoken_budget = true\nshell_tool = false\n")
	write("fast.config.toml", "[features]\nmemories = false\nshell_tool = false\n")
	flags := Flags{Profile: "fast", Enable: []string{"token_budget"}, Disable: []string{"hooks"}, Cd: t.TempDir()}
	lo, err := flags.LoadOptions(func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}, FullAutoSandboxOnly)
	if err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := Load(lo)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"memories": false, "token_budget": true, "hooks": false, "shell_tool": false, "apps": true} {
		if got := features.Enabled(cfg.Features, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	var texts []string
	for _, w := range warnings {
		texts = append(texts, w.Message)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"feature `token_budget` is turned on but is not supported", "feature `shell_tool` is turned off but is always on"} {
		if strings.Count(all, want) != 1 {
			t.Errorf("%q not reported once in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "memories") || strings.Contains(all, "hooks") {
		t.Errorf("warned about a flag at a value gocodex honours:\n%s", all)
	}
}

func TestUnknownFeatureFlag(t *testing.T) {
	_, err := Flags{Enable: []string{"memories"}, Disable: []string{"bogus"}}.LoadOptions(os.Getenv, FullAutoSandboxOnly)
	if err == nil || err.Error() != "Unknown feature flag: bogus" {
		t.Fatalf("err = %v", err)
	}
}
