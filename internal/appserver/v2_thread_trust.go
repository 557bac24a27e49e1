package appserver

import (
	"path/filepath"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// A client that starts a thread in a folder (thread/start with a cwd) under a sandbox that
// may write there has, for Codex 0.169, decided to trust it: Codex records the project (its
// Git repository's root, else the folder) as trusted in config.toml when config.toml has no
// trust decision for it yet, so its own TUI does not ask again. Not on resume or fork, not
// for a read-only sandbox, and an "untrusted" entry stays.
//
// gocodex differs in one case, on purpose: a project root the model may have made does not
// get trusted this way (Codex trusts it). A model that can write in a repository can make a
// folder of it a project root of its own (an empty .git file, or git init) and give it a
// .codex/rules file; trusting that root on the next thread/start there would load the rules.
// So a root whose .git git would not use, or whose .git or .codex changed while a gocodex
// session could write there, is left undecided, with a warning naming why and how to trust
// it (config.Config.TrustTargetSuspect).

// trustStartedProject records cfg's project as trusted when thread/start is such a start.
// A config.toml that cannot be written leaves the thread running; the log says why. It
// returns a warning for the client when the project was left undecided on purpose.
func (r *threads) trustStartedProject(p threadStartParams, cfg *config.Config) string {
	if p.Cwd == nil || cfg == nil || cfg.TrustLevel != "" || cfg.SandboxPolicy.Mode == protocol.SandboxReadOnly {
		return ""
	}
	root := cfg.TrustRoot
	if root == "" {
		root = cfg.Cwd
	}
	if why := cfg.TrustTargetSuspect(); why != "" {
		msg := "the project " + root + " was not trusted on this thread's start: " + why +
			"; if you trust it, set [projects.\"" + root + "\"] trust_level = \"trusted\" in " + filepath.Join(cfg.CodexHome, "config.toml")
		r.srv.logger.Warn("thread/start: " + msg)
		return msg
	}
	path := filepath.Join(cfg.CodexHome, "config.toml")
	if err := config.EditFile(path, config.Set([]string{"projects", root, "trust_level"}, config.TrustTrusted)); err != nil {
		r.srv.logger.Warn("thread/start: the project's trust was not saved", "project", root, "err", err)
	}
	return ""
}
