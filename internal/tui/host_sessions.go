package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/host/threads"
)

// resumePickerSize is how many past threads /resume lists.
const resumePickerSize = 100

// withSessions fills the options the UI's /new, /resume, /fork, /model and /status use.
func withSessions(o Options, a *app.App, cfg *config.Config, noAltScreen bool) Options {
	o.AltScreen = !noAltScreen && wantsAltScreen(cfg)
	o.Theme, _ = tuiTable(cfg)["theme"].(string)
	o.SaveTUISetting = func(path []string, value any) error {
		return config.EditFile(filepath.Join(cfg.CodexHome, "config.toml"), config.Set(append([]string{"tui"}, path...), value))
	}
	if km, ok := tuiTable(cfg)["keymap"].(map[string]any); ok {
		global, _ := km["global"].(map[string]any)
		o.Keymap = map[string]string{}
		for action, key := range global {
			if k, ok := key.(string); ok {
				o.Keymap[action] = k
			}
		}
	}
	for _, f := range faceopts.ExperimentalFeatures(cfg) {
		o.Experimental = append(o.Experimental, ExperimentalFeature(f))
	}
	o.SaveFeature = func(name string, on bool) error {
		return config.EditFile(filepath.Join(cfg.CodexHome, "config.toml"), config.Set([]string{"features", name}, on))
	}
	session := func(th app.Thread) Session {
		return Session{Engine: th, ThreadID: th.ID(), RewindFiles: rewinder(cfg.CodexHome, th.ID(), cfg.Cwd)}
	}
	open := func(ctx context.Context, to app.ThreadOptions) (Session, error) {
		to.Source = "cli"
		th, err := a.StartThread(ctx, to)
		if err != nil {
			return Session{}, err
		}
		return session(th), nil
	}
	store := threads.New(cfg.CodexHome)
	// find is the rollout of a thread /resume or /fork may open (not an archived one).
	find := func(id string) (string, error) {
		path, archived, err := store.Find(id)
		if err != nil {
			return "", err
		}
		if archived {
			return "", errors.New("thread is archived: " + id)
		}
		return path, nil
	}
	// fork copies the thread through the thread service, which loads it whole first.
	fork := func(id string) (*threads.Rollout, error) {
		path, err := find(id)
		if err != nil {
			return nil, err
		}
		_, forked, err := store.Fork(path, threads.ForkOptions{})
		return forked, err
	}
	o.NewThread = func(ctx context.Context) (Session, error) { return open(ctx, app.ThreadOptions{}) }
	o.ThreadOps = threadOps(store)
	o.ListThreads = func(ctx context.Context) ([]ThreadEntry, error) {
		page, err := store.List(threads.ListOptions{PageSize: resumePickerSize, Cwd: cfg.Cwd})
		if err != nil {
			return nil, err
		}
		out := make([]ThreadEntry, len(page.Threads))
		for i, t := range page.Threads {
			out[i] = ThreadEntry{ID: t.ID, Preview: t.Preview, Cwd: t.Cwd, UpdatedAt: t.UpdatedAt}
		}
		return out, nil
	}
	o.ResumeThread = func(ctx context.Context, id string) (Session, error) {
		path, err := find(id)
		if err != nil {
			return Session{}, err
		}
		ro, err := store.Read(path)
		if err != nil {
			return Session{}, err
		}
		return open(ctx, app.ThreadOptions{Resume: ro})
	}
	o.ForkThread = func(ctx context.Context, id string) (Session, error) {
		ro, err := fork(id)
		if err != nil {
			return Session{}, err
		}
		return open(ctx, app.ThreadOptions{Resume: ro})
	}
	o.Providers = usableProviders(cfg, os.Getenv)
	o.SwitchProvider = func(ctx context.Context, id, provider string) (Session, error) {
		pcfg, err := withProvider(cfg, provider)
		if err != nil {
			return Session{}, err
		}
		to := app.ThreadOptions{Config: pcfg}
		if id != "" {
			// A thread's provider is fixed once it runs: the conversation continues in a fork.
			var err error
			if to.Resume, err = fork(id); err != nil {
				return Session{}, err
			}
		}
		s, err := open(ctx, to)
		s.Provider = provider
		return s, err
	}
	for _, m := range app.PickableModels() {
		o.Models = append(o.Models, ModelChoice{Slug: m.Slug, DisplayName: m.DisplayName,
			Efforts: m.SupportedReasoningLevels, DefaultEffort: m.DefaultReasoningLevel})
	}
	o.Header.Provider = cfg.ModelProviderID
	o.Header.Effort = cfg.ReasoningEffort
	o.Header.Account = app.AccountText(cfg, os.Getenv)
	o.AgentsFiles = app.AgentsFiles(cfg)
	return o
}

// rewinder restores the files of thread id's last n turns from its snapshots (/undo).
func rewinder(codexHome, id, cwd string) func(ctx context.Context, n int) (*Undone, error) {
	return func(ctx context.Context, n int) (*Undone, error) {
		plan, err := app.RewindFiles(ctx, codexHome, id, cwd, n, false)
		if err != nil {
			return nil, err
		}
		u := &Undone{HandEdits: plan.HandEdits}
		for _, c := range plan.Changes {
			u.Restored = append(u.Restored, UndoneFile{Kind: string(c.Kind), Path: c.Path})
		}
		return u, nil
	}
}

// wantsAltScreen reads `[tui] fullscreen_transcript` (Codex 0.171's, written by /tui), or
// else `[tui] alternate_screen`: "always" or true draws on the alternate screen; "never",
// "auto", false or nothing keeps the inline default.
func wantsAltScreen(cfg *config.Config) bool {
	t := tuiTable(cfg)
	if full, ok := t["fullscreen_transcript"].(bool); ok {
		return full
	}
	switch v := t["alternate_screen"].(type) {
	case bool:
		return v
	case string:
		return v == "always"
	}
	return false
}

// tuiTable is config.toml's [tui] table (empty when there is none).
func tuiTable(cfg *config.Config) map[string]any {
	t, _ := cfg.Effective["tui"].(map[string]any)
	return t
}

// threadOps are /rename, /archive and /delete on the thread service; a failure of only the
// stores mirroring the rollout is a warning (the operation happened).
func threadOps(store *threads.Service) ThreadOps {
	report := func(err error) (string, error) {
		if err != nil && threads.IsPartial(err) {
			return err.Error(), nil
		}
		return "", err
	}
	return ThreadOps{
		Rename: func(_ context.Context, id, name string) (string, error) { return report(store.Rename(id, name)) },
		Archive: func(_ context.Context, id string) (string, error) {
			_, err := store.Archive(id)
			return report(err)
		},
		Delete: func(_ context.Context, id string) (string, error) { return report(store.Delete(id)) },
	}
}
