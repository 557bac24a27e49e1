package agent

import (
	"context"
	"sync"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// snapshotTimeout bounds one snapshot of the working tree: a huge tree costs the rewind of
// one turn, not the turn itself.
const snapshotTimeout = 2 * time.Minute

// The states of a turn's snapshots.
const (
	snapNone   = iota // no tool has run: the turn has changed nothing
	snapBegun         // the tree was recorded before the first tool
	snapFailed        // recording failed; the turn goes on without
	snapEnded         // the turn's end is recorded
)

// turnSnapshots is a turn's progress through its snapshots. mu is never held while taking
// the turn's mu; the end (under the turn's mu) takes this one.
type turnSnapshots struct {
	mu    sync.Mutex
	state int
}

// ensureSnapshot records the tree before the turn's first tool runs (a turn that only
// answers takes no snapshot at all). A failure is a warning; the turn goes on.
func (tr *turn) ensureSnapshot() {
	snaps := tr.t.cfg.TurnSnapshots
	if snaps == nil {
		return
	}
	tr.snap.mu.Lock()
	if tr.snap.state != snapNone {
		tr.snap.mu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(tr.ctx, snapshotTimeout)
	err := snaps.BeginTurn(ctx, tr.id)
	cancel()
	tr.snap.state = snapBegun
	if err != nil {
		tr.snap.state = snapFailed
	}
	tr.snap.mu.Unlock()
	if err != nil {
		tr.emit(protocol.WarningEvent{Message: "Could not snapshot the working tree before this turn's tools ran; a rewind will not restore its files: " + err.Error()})
	}
}

// takeEndSnapshot records how the turn left the tree, once, before its end is reported (so a
// rewind right after the turn finds it): the tree after its tools, or only that a turn took
// place when none ran. The turn's mu is held.
func (tr *turn) takeEndSnapshot() {
	snaps := tr.t.cfg.TurnSnapshots
	if snaps == nil {
		return
	}
	tr.snap.mu.Lock()
	defer tr.snap.mu.Unlock()
	state := tr.snap.state
	tr.snap.state = snapEnded
	// The turn may have been interrupted: its end is recorded all the same.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(tr.ctx), snapshotTimeout)
	defer cancel()
	var err error
	switch state {
	case snapNone:
		err = snaps.QuietTurn(ctx, tr.id)
	case snapBegun:
		err = snaps.EndTurn(ctx, tr.id)
	}
	if err != nil {
		tr.t.log.Warn("snapshot after turn", "turn", tr.id, "err", err)
	}
}
