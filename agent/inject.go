package agent

import (
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// injectFailed is the codex_error_info of a refused injection.
var injectFailed = json.RawMessage(`"other"`)

// injectItems appends items a client supplies to the history and the rollout, as if the
// conversation had held them (thread/inject_items). Items of a type the Responses API
// does not know are left out, as Codex does. Refused while a turn runs: the turn is still
// writing the history.
func (t *Thread) injectItems(id string, raw []json.RawMessage) {
	if t.turn != nil && !t.turn.isEnded() {
		t.emit(id, protocol.ErrorEvent{Message: "Cannot inject items while a turn is in progress.", CodexErrorInfo: injectFailed})
		return
	}
	var items []protocol.ResponseItem
	for i, r := range raw {
		it, err := protocol.DecodeResponseItem(r)
		if err != nil {
			t.emit(id, protocol.ErrorEvent{Message: fmt.Sprintf("item %d: %v", i, err), CodexErrorInfo: injectFailed})
			return
		}
		if _, unknown := it.(protocol.OtherItem); unknown {
			continue
		}
		items = append(items, it)
	}
	t.recordItems(items...)
	t.flushRecorder()
}

// startGoalTurn starts a turn opened by items instead of user input (protocol.GoalTurnOp).
// Dropped while a turn runs.
func (t *Thread) startGoalTurn(id string, raw []json.RawMessage) {
	if t.turn != nil && !t.turn.isEnded() {
		t.log.Info("goal turn not started: a turn is running", "thread", t.id)
		return
	}
	var items []protocol.ResponseItem
	for i, r := range raw {
		it, err := protocol.DecodeResponseItem(r)
		if err != nil {
			t.emit(id, protocol.ErrorEvent{Message: fmt.Sprintf("goal turn item %d: %v", i, err), CodexErrorInfo: injectFailed})
			return
		}
		items = append(items, it)
	}
	s := t.settings
	tr := t.newTurn(id, s)
	tr.opening = items
	prelude := t.contextItems(s)
	t.launch(tr, func() { tr.run(prelude, nil) })
}
