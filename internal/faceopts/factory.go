package faceopts

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/logging"
)

// Factory hands every face and command what it runs on, each made on first use (gh's
// cmdutil.Factory): the IO streams, the configuration, the log and the process's one host.
// main makes one and passes it down; a command that needs no host (--version, completion,
// the sandbox helper, apply_patch) never loads the configuration or builds anything.
type Factory struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string

	mu    sync.Mutex
	log   *logging.Log
	host  *app.App
	built int // hosts built (one at most; tests read it)
	loads int // configurations loaded at start-up (tests read it)
}

// NewFactory is the factory of a process whose streams are io.
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{IO: io, Getenv: os.Getenv}
}

// Config loads the configuration a command starts with: its flags (lo) over config.toml.
func (f *Factory) Config(lo config.LoadOptions) (*config.Config, []config.Warning, error) {
	f.mu.Lock()
	f.loads++
	f.mu.Unlock()
	return Load(lo)
}

// Logger opens the face's log the first time (see OpenLog) and returns it; later calls return
// the same log whatever they ask.
func (f *Factory) Logger(cfg *config.Config, face string, stderrLevel slog.Level) *slog.Logger {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.log == nil {
		f.log = OpenLog(cfg, face, f.IO.ErrOut, stderrLevel)
	}
	return f.log.Logger()
}

// Host returns the process's host, building it on the first call with o (its Logger, when
// nil, the face's log). A failed build is not kept: a face may call again once the cause is
// gone (the TUI after its sign-in screen). Later calls return the host built first.
func (f *Factory) Host(o app.Options) (*app.App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.host != nil {
		return f.host, nil
	}
	if o.Logger == nil && f.log != nil {
		o.Logger = f.log.Logger()
	}
	if o.Getenv == nil {
		o.Getenv = f.Getenv
	}
	a, err := app.New(o)
	if err != nil {
		return nil, err
	}
	f.host, f.built = a, f.built+1
	return a, nil
}

// Built reports how many hosts were built and configurations loaded at start-up (tests).
func (f *Factory) Built() (hosts, loads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.built, f.loads
}

// Close ends the host's threads (waiting for them within ctx) and closes the log.
func (f *Factory) Close(ctx context.Context) error {
	f.mu.Lock()
	host, log := f.host, f.log
	f.host, f.log = nil, nil
	f.mu.Unlock()
	var err error
	if host != nil {
		err = host.Close(ctx)
	}
	if log != nil {
		err = errors.Join(err, log.Close())
	}
	return err
}
