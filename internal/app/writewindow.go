package app

import (
	"sync"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/writejournal"
	"github.com/gocodex/gocodex/protocol"
)

// writeWindows record in CODEX_HOME's write journal the folders one thread may write, from
// its first command or patch under a sandbox that lets it write (the guard's BeforeWrite)
// until the thread ends. A project file that a thread of a project that is not trusted
// wrote then never loads as configuration (config.ProjectFileRefused), and a project root
// whose .git or .codex appeared while a thread could write there is not trusted on a
// client's behalf (thread/start). A thread that never writes records nothing. A command
// the person lets run outside the sandbox is theirs to judge, and a thread with full access
// could rewrite config.toml and the journal themselves: neither is recorded.
type writeWindows struct {
	journal *writejournal.Journal
	trusted bool
	getenv  func(string) string

	mu      sync.Mutex
	covered map[string]bool
	open    []*writejournal.Window
}

func (a *App) writeWindows(cfg *config.Config) *writeWindows {
	return &writeWindows{journal: cfg.WriteJournal(), trusted: cfg.TrustLevel == config.TrustTrusted, getenv: a.opts.Getenv, covered: map[string]bool{}}
}

// cover opens a window over the policy's writable roots not yet covered.
func (w *writeWindows) cover(policy protocol.SandboxPolicy, policyCwd string) error {
	var fresh []string
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range sandbox.WritableRoots(policy, policyCwd, w.getenv) {
		if !w.covered[r.Root] {
			fresh = append(fresh, r.Root)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	win, err := w.journal.Begin(fresh, w.trusted)
	if err != nil {
		return err
	}
	for _, r := range fresh {
		w.covered[r] = true
	}
	w.open = append(w.open, win)
	return nil
}

// end closes the thread's windows, after its processes have ended. A window that cannot be
// closed stays open until the next reader finds this process gone and closes it.
func (w *writeWindows) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, win := range w.open {
		_ = win.End()
	}
	w.open = nil
}
