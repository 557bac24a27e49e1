package faceopts

import (
	"context"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
)

// Calls are the configurations and threads of a face whose every call brings its own choices
// (mcp-server's codex tool): a call's configuration is its choices over the command's (Base),
// and its thread runs on the process's one host, built on the first call with that call's
// configuration.
type Calls struct {
	Factory *Factory
	// Base are the command's own choices (CODEX_HOME, -c overrides, --strict-config).
	Base config.LoadOptions
	// Getenv is the host's environment; nil means the factory's.
	Getenv func(string) string
	// LoadConfig loads a call's configuration; nil means config.Load (as the app-server's
	// per-thread loads: the start-up warnings are the command's, said once).
	LoadConfig func(config.LoadOptions) (*config.Config, []config.Warning, error)
}

// LoadBase loads the command's own configuration, the one the face starts with: a
// configuration that does not load fails the face at start, not every call.
func (c *Calls) LoadBase() (*config.Config, []config.Warning, error) {
	return c.Factory.Config(c.Base)
}

// Load loads one call's configuration: its choices t over the command's.
func (c *Calls) Load(t ThreadOverrides) (*config.Config, []config.Warning, error) {
	load := c.LoadConfig
	if load == nil {
		load = config.Load
	}
	return load(t.Apply(c.Base))
}

// Start starts a thread with a call's configuration (from Load) on the process's host.
func (c *Calls) Start(ctx context.Context, cfg *config.Config, source string) (app.Thread, error) {
	a, err := c.Factory.Host(app.Options{Config: cfg, Getenv: c.Getenv})
	if err != nil {
		return nil, err
	}
	th, err := a.StartThread(ctx, app.ThreadOptions{Source: source, Config: cfg})
	if err != nil {
		return nil, err // not a nil *agent.Thread in a non-nil Thread
	}
	return th, nil
}
