package agent

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// rollbackFailed is the codex_error_info of a refused rollback.
var rollbackFailed = json.RawMessage(`"thread_rollback_failed"`)

// rollback drops the last n user turns from the history (thread_rollback). It is refused
// while a turn runs, since that turn is still writing the history. The thread_rolled_back
// event is the rollout's marker: a resume replays it. A turn that has reported its end
// writes nothing more, so a rollback sent right after turn_complete is not refused.
func (t *Thread) rollback(id string, n int) {
	if t.turn != nil && !t.turn.isEnded() {
		t.emit(id, protocol.ErrorEvent{Message: "Cannot rollback while a turn is in progress.", CodexErrorInfo: rollbackFailed})
		return
	}
	if n < 1 {
		t.emit(id, protocol.ErrorEvent{Message: "num_turns must be >= 1", CodexErrorInfo: rollbackFailed})
		return
	}
	t.hist.dropLastUserTurns(n)
	// The last response's usage counted turns that are gone; estimate what is left.
	t.estimateUsage(t.settings.info.window())
	t.emit(id, protocol.ThreadRolledBackEvent{NumTurns: n})
}
