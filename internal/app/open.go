package app

import (
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/threads"
)

// Open says which recorded thread a face continues: one by id, the latest (--last), or a
// fork of one. The zero value starts a new thread.
type Open struct {
	ResumeID string
	// ResumeLast takes the most recently updated thread of this directory and provider (of
	// every directory with AllDirectories). Nothing to resume starts a new thread, as in Codex.
	ResumeLast     bool
	AllDirectories bool
	// ForkID starts a new thread from a copy of this one, without its last ForkDropTurns
	// user turns.
	ForkID        string
	ForkDropTurns int
}

// OpenRollout finds and loads the rollout o names (nil for a new thread) through the thread
// service: the one way every face resumes and forks by id or --last.
func OpenRollout(cfg *config.Config, o Open) (*threads.Rollout, error) {
	return threads.New(cfg.CodexHome).Open(threads.Open{ResumeID: o.ResumeID, ResumeLast: o.ResumeLast,
		AllDirectories: o.AllDirectories, Cwd: cfg.Cwd, Provider: cfg.ModelProviderID,
		ForkID: o.ForkID, ForkDropTurns: o.ForkDropTurns})
}
