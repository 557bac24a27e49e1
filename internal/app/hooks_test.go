package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

func TestWithHooks(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		features  map[string]any
		bypass    bool
		wantHooks bool
		warning   string
	}{
		{"untrusted", nil, false, false, "is not trusted and will not run"},
		{"bypassed", nil, true, true, "`--dangerously-bypass-hook-trust` is enabled"},
		{"feature off", map[string]any{"hooks": false}, true, false, ""},
		{"old feature name off", map[string]any{"codex_hooks": false}, true, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &App{opts: Options{BypassHookTrust: c.bypass}}
			cfg := &config.Config{CodexHome: home, Cwd: t.TempDir(), Features: c.features}
			tc := a.withHooks(cfg, agent.ThreadConfig{})
			if (tc.Hooks != nil) != c.wantHooks {
				t.Errorf("hooks set: %v, want %v", tc.Hooks != nil, c.wantHooks)
			}
			var warnings []string
			if tc.OnStarted != nil {
				tc.OnStarted(func(m protocol.EventMsg) { warnings = append(warnings, m.(protocol.WarningEvent).Message) })
			}
			joined := strings.Join(warnings, "\n")
			if (c.warning == "") != (joined == "") || !strings.Contains(joined, c.warning) {
				t.Errorf("warnings %q, want one saying %q", warnings, c.warning)
			}
		})
	}
}
