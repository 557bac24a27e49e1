package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strictConfigForms are the commands Codex 0.171 gives --strict-config, as a user types them.
var strictConfigForms = [][]string{
	{"exec", "--strict-config", "--skip-git-repo-check", "hi"},
	{"exec", "resume", "--strict-config", "--last", "hi"},
	{"review", "--strict-config", "--uncommitted"},
	{"app-server", "--strict-config"},
	{"mcp-server", "--strict-config"},
	{"archive", "--strict-config", "00000000-0000-0000-0000-000000000001"},
	{"delete", "--strict-config", "00000000-0000-0000-0000-000000000001"},
	{"resume", "--strict-config", "--last"},
	{"fork", "--strict-config", "--last"},
	{"--strict-config"},
}

// TestStrictConfig: with a key nobody knows in config.toml, every command that takes
// --strict-config exits 1 naming it, before any model request, as Codex 0.171 does
// (GOCODEX_REFERENCE_CODEX_171 runs the same forms against it); without the flag the key is
// a warning and exec goes on.
func TestStrictConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfgPath := filepath.Join(e.CodexHome, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, append([]byte("bogus_key = 1\n"), cfg...), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "config.toml:1:1: unknown configuration field `bogus_key`"
	for _, args := range strictConfigForms {
		if r := e.run("", args...); r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("gocodex %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(args, " "), r.Code, r.Stderr, want)
		}
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171"); ref != "" {
		for _, args := range strictConfigForms {
			r := e.runBin(ref, "", args...)
			// Codex names the key for all but archive and delete ("failed to load config.toml").
			named := args[0] == "archive" || args[0] == "delete" || strings.Contains(r.Stderr, "unknown configuration field `bogus_key`")
			if r.Code != 1 || !named {
				t.Errorf("codex 0.171 %s: exit %d, stderr %q: the recorded behaviour changed", strings.Join(args, " "), r.Code, r.Stderr)
			}
		}
	}
	e.Model.Enqueue(answer("done"))
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code != 0 || !strings.Contains(r.Stderr, "unknown key `bogus_key` ignored") {
		t.Errorf("exec without --strict-config: exit %d, stderr %q", r.Code, r.Stderr)
	}
}
