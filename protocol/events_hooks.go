package protocol

// HookRunStatus is where a lifecycle hook run stands.
type HookRunStatus string

// The hook run statuses Codex reports.
const (
	HookRunning   HookRunStatus = "running"
	HookCompleted HookRunStatus = "completed"
	HookFailed    HookRunStatus = "failed"
	HookBlocked   HookRunStatus = "blocked"
	HookStopped   HookRunStatus = "stopped"
)

// HookOutputEntry is one thing a hook said: kind is warning, stop, feedback, context or
// error.
type HookOutputEntry struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// HookRunSummary describes one run of one configured hook command. EventName is the
// event's snake_case name (pre_tool_use, session_start, ...); Scope is "thread" for
// session_start, "turn" otherwise; Source is "user" or "project". Times are Unix seconds.
type HookRunSummary struct {
	ID            string            `json:"id"`
	EventName     string            `json:"event_name"`
	HandlerType   string            `json:"handler_type"`
	ExecutionMode string            `json:"execution_mode"`
	Scope         string            `json:"scope"`
	SourcePath    string            `json:"source_path"`
	Source        string            `json:"source"`
	DisplayOrder  int64             `json:"display_order"`
	Status        HookRunStatus     `json:"status"`
	StatusMessage *string           `json:"status_message"`
	StartedAt     int64             `json:"started_at"`
	CompletedAt   *int64            `json:"completed_at"`
	DurationMs    *int64            `json:"duration_ms"`
	Entries       []HookOutputEntry `json:"entries"`
}

// HookStartedEvent says a lifecycle hook command started.
type HookStartedEvent struct {
	TurnID *string        `json:"turn_id"`
	Run    HookRunSummary `json:"run"`
}

// HookCompletedEvent says a lifecycle hook command ended (completed, failed or blocked).
type HookCompletedEvent struct {
	TurnID *string        `json:"turn_id"`
	Run    HookRunSummary `json:"run"`
}

func (HookStartedEvent) EventType() string { return "hook_started" }
func (HookStartedEvent) isEventMsg()       {}

func (e HookStartedEvent) MarshalJSON() ([]byte, error) {
	type plain HookStartedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (HookCompletedEvent) EventType() string { return "hook_completed" }
func (HookCompletedEvent) isEventMsg()       {}

func (e HookCompletedEvent) MarshalJSON() ([]byte, error) {
	type plain HookCompletedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}
