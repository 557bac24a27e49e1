package config

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestEditGolden applies the edits the CLI and app-server make to a real
// commented config and compares with testdata/commented.edited.toml.
func TestEditGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "commented.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON any
	dec := json.NewDecoder(strings.NewReader(`{"max_bytes": 1048576, "persistence": "save-all"}`))
	dec.UseNumber()
	if err := dec.Decode(&fromJSON); err != nil {
		t.Fatal(err)
	}
	enabled := false
	got, err := ApplyEdits(src,
		Set([]string{"model"}, "gpt-6.1-sol"),                     // app-server config/value/write
		Set([]string{"mcp_servers", "docs", "enabled"}, &enabled), // toggling a server keeps its table
		Set([]string{"mcp_servers", "web"}, McpServerConfig{URL: "http://127.0.0.1:7000/mcp", BearerTokenEnvVar: "WEB_TOKEN"}),
		Remove([]string{"profiles", "fast"}),                        // a section in the middle
		Set([]string{"notify"}, []string{"notify-send", "gocodex"}), // a multi-line array becomes one line
		Upsert([]string{"history"}, fromJSON),                       // a new section from JSON numbers
		Set([]string{"features", "unified_exec"}, true),
		Set([]string{"projects", "/home/me/new project", "trust_level"}, "trusted"),
	)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "commented.edited.toml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("edited config differs from %s (-want +got):\n%s", golden, diff)
	}
}
