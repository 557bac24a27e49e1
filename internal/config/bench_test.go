package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad measures a start-up load: a commented user config with
// providers, MCP servers and a profile, a trusted project config and -c
// overrides.
func BenchmarkLoad(b *testing.B) {
	home := b.TempDir()
	project := filepath.Join(home, "repo")
	src, err := os.ReadFile(filepath.Join("testdata", "commented.toml"))
	if err != nil {
		b.Fatal(err)
	}
	src = append(src, []byte("\n[projects."+quoteString(project)+"]\ntrust_level = \"trusted\"\n")...)
	must(b, os.WriteFile(filepath.Join(home, "config.toml"), src, 0o600))
	must(b, os.MkdirAll(filepath.Join(project, ".git"), 0o755))
	must(b, os.MkdirAll(filepath.Join(project, ".codex"), 0o755))
	must(b, os.WriteFile(filepath.Join(project, ".codex", "config.toml"), []byte("model_verbosity = \"low\"\n"), 0o600))
	opts := LoadOptions{CodexHome: home, Cwd: project, Profile: "fast", Env: func(string) string { return "" },
		CLIOverrides: []string{"model=o3", "sandbox_workspace_write.network_access=true"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyEdits measures an `mcp add` style edit of a commented file.
func BenchmarkApplyEdits(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "commented.toml"))
	if err != nil {
		b.Fatal(err)
	}
	server := McpServerConfig{Command: "npx", Args: []string{"-y", "@acme/mcp"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ApplyEdits(src, Set([]string{"mcp_servers", "acme"}, server)); err != nil {
			b.Fatal(err)
		}
	}
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
