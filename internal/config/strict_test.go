package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadFile loads a CODEX_HOME whose config.toml holds body, with or without --strict-config.
func loadFile(t *testing.T, body string, strict bool) ([]Warning, error) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, warnings, err := Load(LoadOptions{CodexHome: home, Cwd: t.TempDir(), Env: func(string) string { return "" }, StrictConfig: strict})
	return warnings, err
}

// Codex 0.171: "…/config.toml:2:1: unknown configuration field `bogus_key`", exit 1 before any
// model request; nested keys by their dotted path; without the flag a warning.
func TestStrictConfigRefusesUnknownKeys(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"model = \"gpt-5\"\nbogus_key = 1\n", ":2:1: unknown configuration field `bogus_key`"},
		{"[history]\nmax_bytes = 5\nbogus = 1\n", ":3:1: unknown configuration field `history.bogus`"},
	} {
		_, err := loadFile(t, tc.body, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("strict load of %q: %v, want %q", tc.body, err, tc.want)
		}
		warnings, err := loadFile(t, tc.body, false)
		if err != nil || len(warnings) == 0 || !warnings[0].Unknown {
			t.Errorf("non-strict load of %q: %v %v, want one unknown-key warning", tc.body, warnings, err)
		}
	}
}

// Keys Codex knows but gocodex does not act on stay warnings under --strict-config, as
// Codex accepts them.
func TestStrictConfigKeepsUnsupportedKeysAsWarnings(t *testing.T) {
	warnings, err := loadFile(t, "[code_mode]\nheartbeat_interval_s = 5\n", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "`code_mode` is a Codex setting gocodex does not support") {
		t.Fatalf("warnings = %v", warnings)
	}
}

// Codex 0.171's new tables: read without a warning where gocodex does what they ask
// (responses.process_mode = "streaming"), named as not supported otherwise, and a wrong
// type or value refused even without --strict-config.
func TestCodex171Tables(t *testing.T) {
	if w, err := loadFile(t, "[responses]\nprocess_mode = \"streaming\"\n", false); err != nil || len(w) != 0 {
		t.Errorf("streaming: %v %v", w, err)
	}
	if w, err := loadFile(t, "[responses]\nprocess_mode = \"after_complete_response\"\n", false); err != nil || len(w) != 1 || !strings.Contains(w[0].Message, "`responses`") {
		t.Errorf("after_complete_response: %v %v", w, err)
	}
	if w, err := loadFile(t, "[rollout_trace]\nmax_bytes = 10\nmax_payload_bytes = 2\n", false); err != nil || len(w) != 1 || !strings.Contains(w[0].Message, "`rollout_trace`") {
		t.Errorf("rollout_trace: %v %v", w, err)
	}
	for body, want := range map[string]string{
		"[code_mode]\nheartbeat_interval_s = \"x\"\n": "invalid type: string \"x\", expected an integer",
		"[rollout_trace]\nmax_bytes = true\n":         "invalid type: boolean `true`, expected an integer",
		"[responses]\nprocess_mode = \"later\"\n":     "unknown variant `later`, expected one of `streaming`, `after_complete_response`",
	} {
		if _, err := loadFile(t, body, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
