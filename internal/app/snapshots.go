package app

import (
	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/snapshot"
)

// openSnapshots gives a recorded thread its per-turn snapshots of the working tree (gocodex's
// rewind with files). An ephemeral thread has nothing to rewind to, and a tree that cannot be
// snapshotted only costs the rewind: it is logged, not fatal.
func (a *App) openSnapshots(tc *agent.ThreadConfig, cfg *config.Config, ephemeral bool) {
	if ephemeral || tc.ThreadID == "" || cfg.CodexHome == "" {
		return
	}
	snap, err := snapshot.Open(cfg.CodexHome, tc.ThreadID, cfg.Cwd)
	if err != nil {
		a.opts.Logger.Warn("no turn snapshots for this thread", "thread", tc.ThreadID, "err", err)
		return
	}
	tc.TurnSnapshots = snap
}
