package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMcpCLI runs `gocodex mcp ARGS…` against codexHome and returns stdout and the error.
func runMcpCLI(t *testing.T, codexHome string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}
	fac := testFactory("")
	fac.IO.Out, fac.IO.ErrOut = &out, &errOut
	fac.Getenv = getenv
	cmd := newMcpCommand(fac)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

func TestMcpCommand(t *testing.T) {
	home := t.TempDir()
	steps := []struct {
		args    []string
		out     string
		errText string
	}{
		{args: []string{"list"}, out: "No MCP servers configured yet. Try `gocodex mcp add my-tool -- my-command`.\n"},
		{args: []string{"list", "--json"}, out: "[]\n"},
		{args: []string{"add", "docs", "--env", "K=V", "--", "docs-server", "--stdio"}, out: "Added global MCP server 'docs'.\n"},
		// Unreachable, so perhaps behind OAuth: Codex 0.171's hint.
		{args: []string{"add", "web", "--url", "http://127.0.0.1:9/mcp"}, out: "Added global MCP server 'web'.\nMCP server may or may not require login. Run `gocodex mcp login web` to login.\n"},
		{args: []string{"get", "docs"}, out: "docs\n  enabled: true\n  transport: stdio\n  command: docs-server\n  args: --stdio\n  cwd: -\n  env: K=*****\n  remove: gocodex mcp remove docs\n"},
		{args: []string{"get", "nope"}, errText: "No MCP server named 'nope' found."},
		{args: []string{"add", "bad name", "--", "x"}, errText: "invalid server name 'bad name'"},
		{args: []string{"add", "x"}, errText: "the following required arguments were not provided"},
		{args: []string{"add", "x", "--url", "u", "--", "cmd"}, errText: "cannot be used with"},
		{args: []string{"add", "x", "--env", "NOEQUALS", "--", "cmd"}, errText: "environment entries must be in KEY=VALUE form"},
		{args: []string{"add", "x", "--bearer-token-env-var", "T", "--", "cmd"}, errText: "requires '--url <URL>'"},
		{args: []string{"remove", "docs"}, out: "Removed global MCP server 'docs'.\n"},
		{args: []string{"remove", "docs"}, out: "No MCP server named 'docs' found.\n"},
	}
	for _, s := range steps {
		out, err := runMcpCLI(t, home, s.args...)
		switch {
		case s.errText != "":
			if err == nil || !strings.Contains(err.Error(), s.errText) {
				t.Errorf("%v: err = %v, want %q", s.args, err, s.errText)
			}
		case err != nil:
			t.Errorf("%v: %v", s.args, err)
		case out != s.out:
			t.Errorf("%v:\n got %q\nwant %q", s.args, out, s.out)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\n"; string(cfg) != want {
		t.Errorf("config.toml:\n%s\nwant\n%s", cfg, want)
	}
}
