package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// listColumns keeps what Codex prints of a `features list` row (name, stage, value), without
// the note gocodex adds after a value it does not honour.
func listColumns(out string) []string {
	var rows []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		row, _, _ := strings.Cut(l, "  (")
		rows = append(rows, strings.TrimRight(row, " "))
	}
	return rows
}

// TestFeaturesListMatchesCodex: with no configuration, `gocodex features list` prints Codex
// 0.171's listing (recorded in testdata); with the reference binary at hand
// (GOCODEX_REFERENCE_CODEX_171), both are also run on the same flags and compared.
func TestFeaturesListMatchesCodex(t *testing.T) {
	e := newEnv(t)
	if err := os.Remove(filepath.Join(e.CodexHome, "config.toml")); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/codex-0.171-features-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := e.run("", "features", "list")
	if r.Code != 0 {
		t.Fatalf("features list: %d %s", r.Code, r.Stderr)
	}
	if got, w := listColumns(r.Stdout), listColumns(string(want)); strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Fatalf("features list differs from Codex's\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stdout, "memories                                 stable             false\n") ||
		!strings.Contains(r.Stdout, "apps                                     stable             true  (not supported by gocodex)\n") {
		t.Errorf("rows:\n%s", r.Stdout)
	}

	ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171")
	if ref == "" {
		return
	}
	for _, args := range [][]string{
		{"features", "list"},
		{"features", "list", "--enable", "memories", "--disable", "hooks", "-c", "features.token_budget=true"},
	} {
		ours := e.run("", args...)
		theirs := e.runBin(ref, "", args...)
		if ours.Code != 0 || theirs.Code != 0 {
			t.Fatalf("%v: exit %d / reference %d: %s", args, ours.Code, theirs.Code, theirs.Stderr)
		}
		if a, b := listColumns(ours.Stdout), listColumns(theirs.Stdout); strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%v differs from the reference:\nours:\n%s\nreference:\n%s", args, ours.Stdout, theirs.Stdout)
		}
	}
}

// --enable of a flag Codex does not have fails as Codex fails, in every command taking it.
func TestEnableUnknownFeatureFails(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"features", "list", "--enable", "bogus"},
		{"exec", "--skip-git-repo-check", "--disable", "bogus", "hi"},
		{"features", "enable", "bogus"},
	} {
		r := e.run("", args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "Error: Unknown feature flag: bogus") {
			t.Errorf("%v: exit %d, stderr %q", args, r.Code, r.Stderr)
		}
		if os.Getenv("GOCODEX_REFERENCE_CODEX") != "" {
			theirs := e.runBin(referenceBinary(t), "", args...)
			if theirs.Code != 1 || !strings.Contains(theirs.Stderr, "Error: Unknown feature flag: bogus") {
				t.Errorf("reference %v: exit %d, stderr %q", args, theirs.Code, theirs.Stderr)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(e.CodexHome, "config.toml")); strings.Contains(string(data), "bogus") {
		t.Error("features enable bogus wrote the config")
	}
}

// `features enable` and `disable` write config.toml as Codex does, and say when gocodex will
// not honour the value.
func TestFeaturesEnableDisable(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "features", "enable", "memories")
	if r.Code != 0 || r.Stdout != "Enabled feature `memories` in config.toml.\n" ||
		!strings.Contains(r.Stderr, "feature `memories` is not supported by gocodex") {
		t.Fatalf("enable: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = e.run("", "features", "disable", "hooks")
	if r.Code != 0 || r.Stdout != "Disabled feature `hooks` in config.toml.\n" || r.Stderr != "" {
		t.Fatalf("disable: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
	if err != nil || !strings.Contains(string(data), "memories = true") || !strings.Contains(string(data), "hooks = false") {
		t.Fatalf("config.toml: %s %v", data, err)
	}
}

// honestyConfig holds an unknown key, a Codex key gocodex does not support, and a feature
// gocodex does not implement.
const honestyConfig = "modle = \"gpt-5.5\"\ntui = { animations = false }\nfeatures.memories = true\n"

func honestyEnv(t *testing.T) *env {
	e := newEnv(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	tk.WriteConfig(t, e.CodexHome, e.Model.URL())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The testkit file ends in its [features] table: put ours at the top.
	text := strings.Replace(honestyConfig, "features.memories = true\n", "", 1) + string(data) + "memories = true\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

var honestyWarnings = []string{
	"unknown key `modle` ignored (gocodex does not know it); did you mean `model`?",
	"`tui.animations` is a Codex setting gocodex does not support: it is ignored",
	"feature `memories` is turned on but is not supported by gocodex: it has no effect",
}

// TestExecWarnsAboutConfigKeys: exec names each such key once on stderr, and still runs.
func TestExecWarnsAboutConfigKeys(t *testing.T) {
	e := honestyEnv(t)
	e.Model.Enqueue(answer("ok"))
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code != 0 {
		t.Fatalf("exec: %d %s", r.Code, r.Stderr)
	}
	for _, w := range honestyWarnings {
		if n := strings.Count(r.Stderr, w); n != 1 {
			t.Errorf("%q appears %d times on stderr:\n%s", w, n, r.Stderr)
		}
	}
	if !strings.Contains(r.Stderr, filepath.Join(e.CodexHome, "config.toml")+":1:1: unknown key `modle`") {
		t.Errorf("the unknown key's place is missing:\n%s", r.Stderr)
	}
}

// TestAppServerWarnsAboutConfigKeys: the app-server sends each as a configWarning after
// initialize.
func TestAppServerWarnsAboutConfigKeys(t *testing.T) {
	e := honestyEnv(t)
	r := e.startRawAppServer()
	r.initialize()
	r.send(`{"id":2,"method":"experimentalFeature/list","params":{"limit":1}}`)
	var summaries []string
	for {
		m := r.next()
		if m["id"] != nil && m["method"] == nil {
			break
		}
		if m["method"] == "configWarning" {
			params, _ := m["params"].(map[string]any)
			summary, _ := params["summary"].(string)
			summaries = append(summaries, summary)
		}
	}
	all := strings.Join(summaries, "\n")
	// Keys no one knows are summed up in Codex 0.169's words; the rest are gocodex's own.
	want := append([]string{"Codex is ignoring 1 unrecognized configuration setting. Check for typos or deprecated settings.\n  user (" +
		filepath.Join(e.CodexHome, "config.toml") + "): `modle` is ignored."}, honestyWarnings[1:]...)
	for _, w := range want {
		if n := strings.Count(all, w); n != 1 {
			t.Errorf("%q in %d configWarning notifications:\n%s", w, n, all)
		}
	}
}

// A malformed config.toml stops exec with the file, line and column of the fault.
func TestExecMalformedConfigNamesThePlace(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	if err := os.WriteFile(path, []byte("model = \"x\"\nfoo = [1,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code == 0 || !strings.Contains(r.Stderr, path+":2:") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestTUIWarnsAboutConfigKeys: the terminal UI shows each as a line of its transcript.
func TestTUIWarnsAboutConfigKeys(t *testing.T) {
	e := honestyEnv(t)
	s := e.startTUI("-a", "never", "-s", "read-only")
	pos := 0
	for _, w := range []string{"unknown key `modle` ignored", "`tui.animations` is a Codex setting gocodex does not support", "feature `memories` is turned on but is not supported"} {
		s.screen.waitFor(t, w, pos)
	}
	pos = s.screen.waitFor(t, "Ask gocodex to do anything", pos)
	s.quit(pos)
}
