package agent

import (
	"context"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// snapshotTimeout bounds one snapshot of the working tree: a huge tree costs the rewind of
// one turn, not the turn itself.
const snapshotTimeout = 2 * time.Minute

// snapshotTurn records the tree before a turn that may change files, and arranges for it to
// be recorded again when the turn ends, however it ends, before the end is reported (so a
// rewind right after the turn finds it).
func (tr *turn) snapshotTurn() {
	snaps := tr.t.cfg.TurnSnapshots
	if snaps == nil {
		return
	}
	ctx, cancel := context.WithTimeout(tr.ctx, snapshotTimeout)
	err := snaps.BeginTurn(ctx, tr.id)
	cancel()
	if err != nil {
		tr.emit(protocol.WarningEvent{Message: "Could not snapshot the working tree before this turn; a rewind will not restore its files: " + err.Error()})
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		tr.endSnapshotWith(snaps)()
		return
	}
	tr.endSnapshot = tr.endSnapshotWith(snaps)
}

// takeEndSnapshot runs the after-turn snapshot, once; tr.mu is held.
func (tr *turn) takeEndSnapshot() {
	if f := tr.endSnapshot; f != nil {
		tr.endSnapshot = nil
		f()
	}
}

func (tr *turn) endSnapshotWith(snaps TurnSnapshotter) func() {
	return func() {
		// The turn may have been interrupted: its files are recorded all the same.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(tr.ctx), snapshotTimeout)
		defer cancel()
		if err := snaps.EndTurn(ctx, tr.id); err != nil {
			tr.t.log.Warn("snapshot after turn", "turn", tr.id, "err", err)
		}
	}
}
