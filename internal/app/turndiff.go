package app

import (
	"sync"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/tool"
)

// turnDiffs hands out one diff tracker per turn of a thread. Only the current turn's is
// kept: a new turn id starts a fresh baseline.
type turnDiffs struct {
	mu     sync.Mutex
	turnID string
	diff   *patch.TurnDiff
}

func (d *turnDiffs) forTurn(env *tool.Env) *patch.TurnDiff {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.diff == nil || d.turnID != env.TurnID {
		d.turnID, d.diff = env.TurnID, patch.NewTurnDiff()
	}
	return d.diff
}
