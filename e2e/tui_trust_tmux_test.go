package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// First run in a Git repository whose trust config.toml does not decide: the trust screen
// (Codex 0.169's "Folder access"); trusting saves [projects."<root>"] trust_level for the
// repository root, keeping the file's comments, and the UI starts. From a subdirectory the
// screen says the root is what gets trusted.
func TestTUITmuxTrustOnFirstRun(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	before := addConfigComment(t, path)
	sub := filepath.Join(e.Workdir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	u := e.startTmuxUIUntrusted("-C", sub)
	u.waitFor("Folder access", sub, "Note: You’re in a subdirectory of a Git project. Trusting will apply to the repository root:",
		"Trust this folder?", "1. Trust and continue", "2. Quit")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Ask gocodex to do anything")
	u.quit()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", e.Workdir)
	if !strings.HasPrefix(string(after), before) || !strings.Contains(string(after), want) {
		t.Errorf("config.toml after trusting:\n%s\nwant the old text (with its comment) and %q", after, want)
	}

	// Decided now: the next start goes straight to the UI.
	u = e.startTmuxUIUntrusted()
	u.waitFor("Ask gocodex to do anything")
	if strings.Contains(u.screen(), "Folder access") {
		t.Error("the trust screen came back after the folder was trusted")
	}
	u.quit()
}

// Leaving the trust screen (Esc) starts nothing and writes nothing.
func TestTUITmuxTrustDeclined(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	before := addConfigComment(t, path)
	u := e.startTmuxUIUntrusted()
	u.waitFor("Folder access", e.Workdir, "Trust this folder?")
	u.pane.sendKeys(false, "Escape")
	u.waitExit()
	if after, _ := os.ReadFile(path); string(after) != before {
		t.Errorf("config.toml changed without trust:\n%s", after)
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// addConfigComment puts a comment at the top of config.toml and returns the new text.
func addConfigComment(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := "# my settings, keep this comment\n" + string(data)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return text
}

// A first run with neither trust nor credentials: the trust screen, then the sign-in
// screen, then the UI, as Codex's onboarding goes.
func TestTUITmuxTrustThenSignIn(t *testing.T) {
	e := newEnv(t)
	cfg := "# first run\nmodel = \"gpt-5.5\"\nopenai_base_url = \"" + e.Model.URL() + "/v1\"\n"
	path := filepath.Join(e.CodexHome, "config.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Model.Enqueue(answer("ONBOARDED"))
	u := e.startTmuxUIUntrusted()
	u.waitFor("Folder access", "1. Trust and continue")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Sign in with ChatGPT", "Provide your own API key")
	u.typeLine("3")
	u.waitFor("Paste your API key")
	u.typeLine("sk-onboard-0123456789")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("hello")
	u.waitFor("ONBOARDED")
	u.quit()
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), cfg) || !strings.Contains(string(after), fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"", e.Workdir)) {
		t.Errorf("config.toml:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(e.CodexHome, "auth.json")); err != nil {
		t.Errorf("no credentials stored: %v", err)
	}
}
