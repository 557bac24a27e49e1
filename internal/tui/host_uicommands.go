package tui

import (
	"context"
	"io"
	"os"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/uicommands"
	"github.com/gocodex/gocodex/internal/version"
	"github.com/gocodex/gocodex/protocol"
)

// uiHost is the host's side of the settings and housekeeping commands (ui_host.go).
func uiHost(a *app.App, cfg *config.Config, bypassHookTrust bool) UIHost {
	prefs := uicommands.ReadPrefs(cfg)
	home := cfg.CodexHome
	return UIHost{
		StatusLine:          prefs.StatusLine,
		StatusLineUseColors: prefs.StatusLineUseColors,
		TerminalTitle:       prefs.TerminalTitle,
		ServiceTier:         prefs.ServiceTier,
		Presets:             prefs.Presets,
		SavePreset:          func(slot string, p uicommands.Preset) error { return uicommands.SavePreset(home, slot, p) },
		SaveStatusLine: func(items []string, colors bool) error {
			return uicommands.SaveStatusLine(home, items, colors)
		},
		SaveTerminalTitle: func(items []string) error { return uicommands.SaveTerminalTitle(home, items) },
		SaveServiceTier:   func(tier string) error { return uicommands.SaveServiceTier(home, tier) },
		FastTier:          uicommands.FastTier,
		SaveFeedback: func(f FeedbackReport) (string, error) {
			return uicommands.SaveFeedbackZIP(uicommands.Feedback{CodexHome: home, LogDir: cfg.LogDir,
				ThreadID: f.ThreadID, Classification: f.Classification, Note: f.Note,
				Version: version.Version, IncludeLogs: f.IncludeLogs, Now: f.Now})
		},
		Logout: func(ctx context.Context) (bool, string, error) { return uicommands.Logout(ctx, cfg, Originator) },
		BackgroundTerminals: func(e Engine) []BackgroundTerminal {
			var out []BackgroundTerminal
			for _, t := range uicommands.BackgroundTerminals(e) {
				out = append(out, BackgroundTerminal{ProcessID: t.ProcessID, Command: t.Command, Cwd: t.Cwd})
			}
			return out
		},

		McpLogin: func(ctx context.Context, name string, out io.Writer) error {
			return uicommands.McpLogin(ctx, cfg, name, uicommands.McpLoginOptions{Out: out, OpenBrowser: uicommands.OpenBrowser(os.Getenv)})
		},
		Hooks:  func() []uicommands.Hook { return uicommands.ListHooks(cfg, bypassHookTrust) },
		Skills: func() []uicommands.Skill { return uicommands.ListSkills(cfg) },
		SideThread: func(ctx context.Context, mainID string) (Session, error) {
			th, err := uicommands.OpenSide(ctx, a, home, mainID)
			if err != nil {
				return Session{}, err
			}
			return Session{Engine: th, ThreadID: th.ID()}, nil
		},
		WorktreeThread: func(ctx context.Context, from string) (Session, error) {
			th, wt, err := uicommands.WorktreeThread(ctx, a, cfg, from)
			if err != nil {
				return Session{}, err
			}
			return Session{Engine: th, ThreadID: th.ID(), Cwd: wt.Cwd}, nil
		},
		WatchSubagents: func(deliver func(childID, parentID string, ev protocol.Event)) {
			// Shown, not answered: a sub-agent's approval request is denied by the host.
			a.ObserveSubagents(func(child app.Thread, parentID string, ev protocol.Event) bool {
				deliver(child.ID(), parentID, ev)
				return false
			})
		},
		Recap: func(ctx context.Context, threadID string) (string, error) {
			return uicommands.Recap(ctx, a, home, threadID)
		},
	}
}
