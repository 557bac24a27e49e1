package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readConfigUntil waits until config.toml holds want, as written by the UI.
func (e *env) readConfigUntil(want string) string {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
		if strings.Contains(string(data), want) {
			return string(data)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("config.toml lacks %q:\n%s", want, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /theme saves the chosen syntax theme as Codex 0.171 does, `[tui] theme = "NAME"`, and a
// new UI starts in it (the picker marks it current).
func TestTUITmuxThemePersists(t *testing.T) {
	e := newEnv(t)
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/theme")
	u.waitFor("Select Syntax Theme", "catppuccin-mocha (current)")
	u.pane.sendKeys(true, "dracula")
	u.waitFor("› 1. dracula")
	u.pane.sendKeys(false, "Enter")
	cfg := e.readConfigUntil(`theme = "dracula"`)
	if !strings.Contains(cfg, "[tui]") {
		t.Fatalf("the theme is not under [tui]:\n%s", cfg)
	}
	u.quit()

	again := e.startTmuxUI()
	again.waitFor("Ask gocodex to do anything")
	again.typeLine("/theme")
	again.waitFor("dracula (current)")
	again.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: /theme went to the model", n)
	}
}
