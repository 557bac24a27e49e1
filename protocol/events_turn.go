package protocol

import "encoding/json"

// ErrorEvent ends the turn with an error the person should see.
type ErrorEvent struct {
	Message string `json:"message"`
	// CodexErrorInfo classifies the error (context_window_exceeded, usage_limit_exceeded, …);
	// kept raw.
	CodexErrorInfo json.RawMessage `json:"codex_error_info,omitempty"`
}

// WarningEvent is a non-fatal problem the person should see.
type WarningEvent struct {
	Message string `json:"message"`
}

// StreamErrorEvent reports a retryable problem talking to the model (retrying N/M …).
type StreamErrorEvent struct {
	Message           string          `json:"message"`
	CodexErrorInfo    json.RawMessage `json:"codex_error_info,omitempty"`
	AdditionalDetails *string         `json:"additional_details,omitempty"`
}

// BackgroundEventEvent is an informational message.
type BackgroundEventEvent struct {
	Message string `json:"message"`
}

// ModelRerouteEvent says the server answered a turn with another model than the one asked
// for (its `openai-model` header).
type ModelRerouteEvent struct {
	FromModel string `json:"from_model"`
	ToModel   string `json:"to_model"`
	// Reason is ModelRerouteHighRiskCyberActivity, the one reason Codex 0.169 knows.
	Reason string `json:"reason"`
}

// ModelRerouteHighRiskCyberActivity is the reason of every reroute Codex 0.169 reports.
const ModelRerouteHighRiskCyberActivity = "high_risk_cyber_activity"

// DeprecationNoticeEvent tells the person a setting or feature is going away.
type DeprecationNoticeEvent struct {
	Summary string  `json:"summary"`
	Details *string `json:"details,omitempty"`
}

// ContextCompactedEvent says the history was compacted.
type ContextCompactedEvent struct{}

// ThreadRolledBackEvent answers ThreadRollbackOp.
type ThreadRolledBackEvent struct {
	NumTurns int `json:"num_turns"`
}

// TurnAttribution says what started a turn and where it sits in a tree of sub-agent turns.
type TurnAttribution struct {
	TurnID              string  `json:"turn_id"`
	TurnTrigger         string  `json:"turn_trigger"`
	ParentTurnID        *string `json:"parent_turn_id"`
	InitiatingAgentPath *string `json:"initiating_agent_path"`
	RootTurnID          string  `json:"root_turn_id"`
}

// TurnStartedEvent opens a turn. Codex 0.169 names the Rust variant TurnStarted but still
// writes it as "task_started"; "turn_started" is accepted on input.
type TurnStartedEvent struct {
	TurnAttribution    *TurnAttribution `json:"turn_attribution,omitempty"`
	TurnID             string           `json:"turn_id"`
	RootTurnID         string           `json:"root_turn_id,omitempty"`
	StartedAt          *int64           `json:"started_at,omitempty"`
	ModelContextWindow *int64           `json:"model_context_window"`
	// CollaborationModeKind is the collaboration mode ("default", "plan").
	CollaborationModeKind string `json:"collaboration_mode_kind,omitempty"`
}

// TurnCompleteEvent closes a turn; written as "task_complete" like TurnStartedEvent.
// Times are unix seconds, durations milliseconds.
type TurnCompleteEvent struct {
	RootTurnID       string  `json:"root_turn_id,omitempty"`
	TurnID           string  `json:"turn_id"`
	LastAgentMessage *string `json:"last_agent_message"`
	// Error is set when the turn ended because of an error.
	Error              *TurnError `json:"error,omitempty"`
	StartedAt          *int64     `json:"started_at,omitempty"`
	CompletedAt        *int64     `json:"completed_at,omitempty"`
	DurationMs         *int64     `json:"duration_ms,omitempty"`
	TimeToFirstTokenMs *int64     `json:"time_to_first_token_ms,omitempty"`
}

// TurnError is the error a turn ended with.
type TurnError struct {
	Message        string          `json:"message"`
	CodexErrorInfo json.RawMessage `json:"codex_error_info,omitempty"`
}

// TurnAbortReason says why a turn ended early.
type TurnAbortReason string

// The abort reasons.
const (
	AbortInterrupted TurnAbortReason = "interrupted"
	AbortReplaced    TurnAbortReason = "replaced"
	AbortReviewEnded TurnAbortReason = "review_ended"
)

// TurnAbortedEvent closes a turn that was interrupted or replaced.
type TurnAbortedEvent struct {
	TurnID string          `json:"turn_id,omitempty"`
	Reason TurnAbortReason `json:"reason"`
}

// TokenCountEvent reports token usage and rate limits after each response.
type TokenCountEvent struct {
	Info       *TokenUsageInfo    `json:"info"`
	RateLimits *RateLimitSnapshot `json:"rate_limits"`
}

// AgentMessageEvent is a complete assistant message.
type AgentMessageEvent struct {
	Message string `json:"message"`
	Phase   string `json:"phase,omitempty"`
}

// AgentMessageDeltaEvent is a streamed piece of an assistant message.
type AgentMessageDeltaEvent struct {
	Delta string `json:"delta"`
}

// UserMessageEvent echoes the user's input as it entered the conversation.
type UserMessageEvent struct {
	Message      string            `json:"message"`
	Images       []string          `json:"images"`
	LocalImages  []string          `json:"local_images"`
	TextElements []json.RawMessage `json:"text_elements"`
}

// AgentReasoningEvent is a complete reasoning summary part.
type AgentReasoningEvent struct {
	Text string `json:"text"`
}

// AgentReasoningDeltaEvent is a streamed piece of a reasoning summary.
type AgentReasoningDeltaEvent struct {
	Delta string `json:"delta"`
}

// AgentReasoningRawContentEvent is complete raw reasoning text (when enabled).
type AgentReasoningRawContentEvent struct {
	Text string `json:"text"`
}

// AgentReasoningRawContentDeltaEvent is a streamed piece of raw reasoning.
type AgentReasoningRawContentDeltaEvent struct {
	Delta string `json:"delta"`
}

// AgentReasoningSectionBreakEvent separates reasoning summary parts.
type AgentReasoningSectionBreakEvent struct {
	ItemID       string `json:"item_id"`
	SummaryIndex int64  `json:"summary_index"`
}

// SessionConfiguredEvent is the first event of a thread: what it is and how it is set up.
// Empty optional fields are left out, as Codex leaves them out.
type SessionConfiguredEvent struct {
	SessionID         string          `json:"session_id"`
	ForkedFromID      string          `json:"forked_from_id,omitempty"`
	ThreadName        string          `json:"thread_name,omitempty"`
	Model             string          `json:"model"`
	ModelProviderID   string          `json:"model_provider_id,omitempty"`
	ApprovalPolicy    *AskForApproval `json:"approval_policy,omitempty"`
	SandboxPolicy     *SandboxPolicy  `json:"sandbox_policy,omitempty"`
	Cwd               string          `json:"cwd,omitempty"`
	ReasoningEffort   string          `json:"reasoning_effort,omitempty"`
	HistoryLogID      uint64          `json:"history_log_id"`
	HistoryEntryCount int             `json:"history_entry_count"`
	InitialMessages   []EventMsgJSON  `json:"initial_messages,omitempty"`
	RolloutPath       string          `json:"rollout_path,omitempty"`
}

// EventMsgJSON holds an EventMsg inside a struct so that it decodes through DecodeEventMsg.
type EventMsgJSON struct{ Msg EventMsg }

// MarshalJSON writes the message.
func (e EventMsgJSON) MarshalJSON() ([]byte, error) { return MarshalEventMsg(e.Msg) }

// UnmarshalJSON reads the message.
func (e *EventMsgJSON) UnmarshalJSON(data []byte) error {
	m, err := DecodeEventMsg(data)
	if err != nil {
		return err
	}
	e.Msg = m
	return nil
}

// PlanStatus is the state of one plan step.
type PlanStatus string

// The plan step states.
const (
	PlanPending    PlanStatus = "pending"
	PlanInProgress PlanStatus = "in_progress"
	PlanCompleted  PlanStatus = "completed"
)

// PlanItem is one step of the model's plan.
type PlanItem struct {
	Step   string     `json:"step"`
	Status PlanStatus `json:"status"`
}

// PlanUpdateEvent carries the model's update_plan call.
type PlanUpdateEvent struct {
	Explanation *string    `json:"explanation,omitempty"`
	Plan        []PlanItem `json:"plan"`
}

// TurnDiffEvent is the turn's aggregated diff so far.
type TurnDiffEvent struct {
	UnifiedDiff string `json:"unified_diff"`
}

// HistoryEntry is one line of the cross-session message history.
type HistoryEntry struct {
	ConversationID string `json:"session_id"`
	Ts             uint64 `json:"ts"`
	Text           string `json:"text"`
}

// GetHistoryEntryResponseEvent answers GetHistoryEntryRequestOp.
type GetHistoryEntryResponseEvent struct {
	Offset int           `json:"offset"`
	LogID  uint64        `json:"log_id"`
	Entry  *HistoryEntry `json:"entry,omitempty"`
}

// ShutdownCompleteEvent answers ShutdownOp; no event follows it.
type ShutdownCompleteEvent struct{}

// RawResponseItemEvent carries a response item as the model produced it.
type RawResponseItemEvent struct {
	Item ResponseItemJSON `json:"item"`
}

// ResponseItemJSON holds a ResponseItem inside a struct so that it decodes through
// DecodeResponseItem.
type ResponseItemJSON struct{ Item ResponseItem }

// MarshalJSON writes the item.
func (r ResponseItemJSON) MarshalJSON() ([]byte, error) {
	if r.Item == nil {
		return []byte("null"), nil
	}
	return Marshal(r.Item)
}

// UnmarshalJSON reads the item.
func (r *ResponseItemJSON) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		r.Item = nil
		return nil
	}
	it, err := DecodeResponseItem(data)
	if err != nil {
		return err
	}
	r.Item = it
	return nil
}

// ItemStartedEvent and ItemCompletedEvent carry thread items (the app-server's view); the
// item is kept raw so this package does not depend on the projection.
type ItemStartedEvent struct {
	ThreadID string          `json:"thread_id"`
	TurnID   string          `json:"turn_id"`
	Item     json.RawMessage `json:"item"`
}

// ItemCompletedEvent: see ItemStartedEvent.
type ItemCompletedEvent struct {
	ThreadID string          `json:"thread_id"`
	TurnID   string          `json:"turn_id"`
	Item     json.RawMessage `json:"item"`
}
