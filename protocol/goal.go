package protocol

import "encoding/json"

// GoalTurnOp starts a turn of an active thread goal's pursuit: Items (Responses API JSON)
// open it instead of a user message and no user_message event is emitted. While a turn
// runs it is dropped: the face starts the next one when that turn ends.
type GoalTurnOp struct {
	Items []json.RawMessage `json:"items"`
}

// ThreadGoalUpdatedEvent reports a thread goal a tool changed (the goal's v2 JSON, as the
// face that keeps goals wrote it). With Sync set and no Goal it changes nothing: the face
// that keeps goals answers it once it has handled every event before it (a goal tool waits
// so the usage of the response that called it is counted first).
type ThreadGoalUpdatedEvent struct {
	Goal json.RawMessage `json:"goal,omitempty"`
	Sync string          `json:"sync,omitempty"`
}

func (GoalTurnOp) OpType() string { return "goal_turn" }
func (GoalTurnOp) isOp()          {}

func (o GoalTurnOp) MarshalJSON() ([]byte, error) {
	type plain GoalTurnOp
	p := plain(o)
	if p.Items == nil {
		p.Items = []json.RawMessage{}
	}
	return marshalTagged("type", o.OpType(), p)
}

func (ThreadGoalUpdatedEvent) EventType() string { return "thread_goal_updated" }
func (ThreadGoalUpdatedEvent) isEventMsg()       {}

func (e ThreadGoalUpdatedEvent) MarshalJSON() ([]byte, error) {
	type plain ThreadGoalUpdatedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}
