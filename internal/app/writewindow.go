package app

import (
	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// openWriteWindow records in CODEX_HOME's write journal the folders this thread may write,
// until the returned function is called at the thread's end. A project file that a thread
// of a project that is not trusted wrote then never loads as configuration
// (config.ProjectFileRefused), and a project root whose .git or .codex appeared while a
// thread could write there is not trusted on a client's behalf (thread/start).
//
// The folders are those of workspace-write even under read-only (the person may widen the
// sandbox during the thread, and a read-only thread writes nothing anyway). A thread with
// full access records nothing: it could rewrite config.toml and the journal themselves.
// A journal that cannot be written is a warning when the thread starts, never silent.
func (a *App) openWriteWindow(cfg *config.Config, tc *agent.ThreadConfig) (end func()) {
	policy := cfg.SandboxPolicy
	if policy.HasFullDiskWriteAccess() {
		return func() {}
	}
	policy.Mode = protocol.SandboxWorkspaceWrite
	var roots []string
	for _, r := range sandbox.WritableRoots(policy, cfg.Cwd, a.opts.Getenv) {
		roots = append(roots, r.Root)
	}
	if len(roots) == 0 {
		return func() {}
	}
	w, err := cfg.WriteJournal().Begin(roots, cfg.TrustLevel == config.TrustTrusted)
	if err != nil {
		msg := "files this session writes cannot be told apart from yours later, so do not trust this project on the strength of its .codex folders: " + err.Error()
		if l := a.opts.Logger; l != nil {
			l.Warn(msg)
		}
		started := tc.OnStarted
		tc.OnStarted = func(emit func(protocol.EventMsg)) {
			emit(protocol.WarningEvent{Message: msg})
			if started != nil {
				started(emit)
			}
		}
		return func() {}
	}
	return func() {
		if err := w.End(); err != nil && a.opts.Logger != nil {
			a.opts.Logger.Warn("write journal: the thread's window stays open until the next reader closes it", "err", err)
		}
	}
}
