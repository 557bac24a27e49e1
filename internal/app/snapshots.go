package app

import (
	"github.com/gocodex/gocodex/internal/snapshot"
)

// openSnapshots gives a recorded thread its per-turn snapshots of the working tree (gocodex's
// rewind with files). An ephemeral thread has nothing to rewind to, and a tree that cannot be
// snapshotted only costs the rewind: it is logged, not fatal.
func (a *App) openSnapshots(to *ThreadOptions) {
	if to.Ephemeral || to.Snapshots != nil || to.ThreadID == "" {
		return
	}
	cfg := a.configOf(*to)
	if cfg.CodexHome == "" {
		return
	}
	snap, err := snapshot.Open(cfg.CodexHome, to.ThreadID, cfg.Cwd)
	if err != nil {
		a.opts.Logger.Warn("no turn snapshots for this thread", "thread", to.ThreadID, "err", err)
		return
	}
	to.Snapshots = snap
}
