// Package modelstream is the public contract between the engine and a model: the request
// (Prompt), the events of one streamed response (ResponseEvent and its concrete types) and
// the Streamer a thread reads them from. The built-in Responses API client (internal) and any
// program embedding the agent (a scripted model, another provider) meet here.
package modelstream

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Streamer is what a thread needs from the model: one streamed response per prompt, with
// retries reported to obs (which may be nil).
type Streamer interface {
	Stream(ctx context.Context, p Prompt, obs RetryObserver) (Stream, error)
}

// Stream yields the events of one response; Next returns io.EOF after Completed.
type Stream interface {
	Next(ctx context.Context) (ResponseEvent, error)
	Close() error
}

// Prompt is everything one Responses request carries besides transport settings.
type Prompt struct {
	// Model is the slug sent as `model`.
	Model string
	// Instructions is the base instructions text; omitted from the body when empty.
	Instructions string
	// Input is the conversation history, in order.
	Input []protocol.ResponseItem
	// Tools are wire-form tool specs (see tool.Spec).
	Tools []json.RawMessage
	// ParallelToolCalls is the model capability (catalog), sent as `parallel_tool_calls`.
	ParallelToolCalls bool
	// Reasoning is sent as `reasoning`; nil sends null (model without reasoning summaries).
	Reasoning *Reasoning
	// OutputSchema, when set, becomes a strict `text.format` json_schema named
	// codex_output_schema.
	OutputSchema json.RawMessage
	// Verbosity ("low", "medium", "high") goes into `text.verbosity` when set.
	Verbosity string
	// ServiceTier is the config value; "fast" is sent as "priority", "" omits it (null).
	ServiceTier string
	// PromptCacheKey is the thread id, sent as `prompt_cache_key`.
	PromptCacheKey string
	// ThreadID is sent as the `session-id`, `thread-id` and `x-client-request-id` headers;
	// empty means PromptCacheKey.
	ThreadID string
	// ClientMetadata is the `client_metadata` object, written as given (Codex 0.169 sends
	// session_id, x-codex-window-id, root_turn_id, x-codex-turn-metadata,
	// x-codex-installation-id, thread_id, turn_id in that order). When empty,
	// InstallationID alone is sent as {"x-codex-installation-id": ...}.
	ClientMetadata json.RawMessage
	// InstallationID goes into `client_metadata` as x-codex-installation-id when set.
	InstallationID string
	// Store is sent as `store` (true only for Azure Responses endpoints).
	Store bool
	// ExtraHeaders are added to the request as given (lowercase on the wire): Codex 0.169
	// also sends x-codex-window-id, x-codex-turn-metadata, x-codex-beta-features, and
	// x-openai-subagent / x-codex-turn-state where they apply.
	ExtraHeaders map[string]string
}

// Reasoning is the `reasoning` object of a request.
type Reasoning struct {
	// Effort is "minimal", "low", "medium", "high", "xhigh" or "" (omitted).
	Effort string `json:"effort,omitempty"`
	// Summary is "auto", "concise", "detailed"; "" and "none" are omitted.
	Summary string `json:"summary,omitempty"`
}

// ResponseEvent is one event of a model response. The set is sealed; switch on the concrete
// type and ignore the ones you do not need.
type ResponseEvent interface{ responseEvent() }

// Created is response.created.
type Created struct{}

// OutputItemAdded is response.output_item.added: an item started (its content may be partial).
type OutputItemAdded struct{ Item protocol.ResponseItem }

// OutputItemDone is response.output_item.done: a finished item to record and act on.
type OutputItemDone struct{ Item protocol.ResponseItem }

// OutputTextDelta is response.output_text.delta.
type OutputTextDelta struct {
	ItemID string
	Delta  string
}

// ReasoningSummaryDelta is response.reasoning_summary_text.delta.
type ReasoningSummaryDelta struct {
	ItemID       string
	Delta        string
	SummaryIndex int64
}

// ReasoningSummaryPartAdded is response.reasoning_summary_part.added (a section break).
type ReasoningSummaryPartAdded struct {
	ItemID       string
	SummaryIndex int64
}

// ReasoningContentDelta is response.reasoning_text.delta (raw reasoning content).
type ReasoningContentDelta struct {
	ItemID       string
	Delta        string
	ContentIndex int64
}

// CustomToolCallInputDelta is response.custom_tool_call_input.delta.
type CustomToolCallInputDelta struct {
	ItemID string
	CallID string
	Delta  string
}

// Completed is response.completed; it is the last event of a stream (Next then returns io.EOF).
type Completed struct {
	ResponseID string
	Usage      *protocol.TokenUsage
}

// RateLimits carries the rate-limit snapshot read from the response headers; it arrives
// before Created when the server sent any rate-limit headers.
type RateLimits struct{ Snapshot protocol.RateLimitSnapshot }

// ServerModel reports the `openai-model` response header when it differs from the requested
// slug (the server rerouted the request).
type ServerModel struct{ Model string }

// ServerReasoningIncluded reports the `x-reasoning-included` response header: past reasoning
// tokens are already counted by the server.
type ServerReasoningIncluded struct{}

// ServerTurnState carries the `x-codex-turn-state` response header: a sticky-routing token
// Codex sends back (as the x-codex-turn-state request header) on later requests of the turn.
type ServerTurnState struct{ Token string }

func (Created) responseEvent()                   {}
func (ServerTurnState) responseEvent()           {}
func (OutputItemAdded) responseEvent()           {}
func (OutputItemDone) responseEvent()            {}
func (OutputTextDelta) responseEvent()           {}
func (ReasoningSummaryDelta) responseEvent()     {}
func (ReasoningSummaryPartAdded) responseEvent() {}
func (ReasoningContentDelta) responseEvent()     {}
func (CustomToolCallInputDelta) responseEvent()  {}
func (Completed) responseEvent()                 {}
func (RateLimits) responseEvent()                {}
func (ServerModel) responseEvent()               {}
func (ServerReasoningIncluded) responseEvent()   {}

// RetryInfo is passed to the RetryObserver before the client waits and tries again.
type RetryInfo struct {
	// Attempt is 1 for the first retry; Max is the budget (stream_max_retries or
	// request_max_retries).
	Attempt, Max int
	// Delay is how long the client will wait before trying again.
	Delay time.Duration
	// Err is the error that caused the retry.
	Err error
	// Stream is true for a stream retry (the engine emits stream_error "Reconnecting...
	// n/max"), false for a request retry before any event.
	Stream bool
	// Restarted is true when events of the failed attempt were already delivered and the
	// next events come from a fresh response.
	Restarted bool
}

// RetryObserver is called before every retry; it must not block for long. It may be nil.
type RetryObserver func(RetryInfo)
