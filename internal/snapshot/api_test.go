package snapshot_test

import (
	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/snapshot"
)

// A thread's journal is what the engine's turn snapshot hook takes.
var _ agent.TurnSnapshotter = (*snapshot.Thread)(nil)
