package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// ModelStreamer is what a thread needs from the model edge: one streamed response per
// prompt, with retries reported to obs. The built-in Responses client provides one; a program
// embedding the agent may implement its own (a scripted model, another provider).
type ModelStreamer = modelstream.Streamer

// ModelStream yields the events of one response; Next returns io.EOF after Completed.
type ModelStream = modelstream.Stream

// ModelInfo is what the engine needs to know about a model (from the catalog).
type ModelInfo struct {
	// ContextWindow is the model's window in tokens; 0 when unknown.
	ContextWindow int64
	// EffectiveContextWindowPercent scales ContextWindow for what is reported as usable
	// (Codex uses 95); 0 means 100.
	EffectiveContextWindowPercent int64
	// Tools says which built-in tools the model gets.
	Tools tool.Options
	// ParallelToolCalls is sent as `parallel_tool_calls`.
	ParallelToolCalls bool
	// SupportsReasoning sends the `reasoning` object; without it `reasoning` is null.
	SupportsReasoning bool
	// DefaultReasoningEffort is used when the turn sets none.
	DefaultReasoningEffort string
	// DefaultReasoningSummary is used when the turn sets none ("none" omits it).
	DefaultReasoningSummary string
	// DefaultVerbosity goes into `text.verbosity` when the model supports it.
	DefaultVerbosity string
	// BaseInstructions is the catalog's own base instructions; "" means ours.
	BaseInstructions string
	// AutoCompactTokenLimit is the token count at which the thread compacts its history on
	// its own (the catalog's auto_compact_token_limit). 0 means 90% of ContextWindow (no
	// automatic compaction when that is unknown too); a negative value turns it off.
	AutoCompactTokenLimit int64
}

// autoCompactLimit resolves AutoCompactTokenLimit; 0 means never.
func (m ModelInfo) autoCompactLimit() int64 {
	switch {
	case m.AutoCompactTokenLimit > 0:
		return m.AutoCompactTokenLimit
	case m.AutoCompactTokenLimit == 0 && m.ContextWindow > 0:
		return m.ContextWindow * 9 / 10
	}
	return 0
}

// window returns the context window to report, scaled by the effective percent.
func (m ModelInfo) window() *int64 {
	if m.ContextWindow <= 0 {
		return nil
	}
	w := m.ContextWindow
	if p := m.EffectiveContextWindowPercent; p > 0 && p < 100 {
		w = w * p / 100
	}
	return &w
}

// Recorder persists a thread (the rollout, issue 5). The thread calls it from its own
// goroutines, one call at a time, before the corresponding event is queued. An error is
// reported once as a warning event and otherwise ignored: losing the rollout must not stop
// the conversation.
type Recorder interface {
	// RecordItems is called with response items as they enter the history.
	RecordItems(items []protocol.ResponseItem) error
	// RecordEvent is called with every event before it is queued.
	RecordEvent(ev protocol.Event) error
	// Flush is called at the end of each turn and at shutdown.
	Flush() error
}

// CompactionRecorder is implemented by a Recorder that keeps compaction markers (the
// rollout's `compacted` line). When the history is compacted the thread calls
// RecordCompacted before the history is replaced and before context_compacted goes out:
// message is the summary message's text and replacement the whole new history, so a resume
// can start from it.
type CompactionRecorder interface {
	RecordCompacted(message string, replacement []protocol.ResponseItem) error
}

// TurnSettings are the settings later turns run with, as a rollout's turn_context lines
// record them.
type TurnSettings struct {
	Cwd            string
	Model          string
	ApprovalPolicy protocol.AskForApproval
	SandboxPolicy  protocol.SandboxPolicy
	Effort         string
	Summary        string
}

// SettingsRecorder is a Recorder that also follows setting changes (user_turn,
// override_turn_context), so each turn's recorded context is the one it ran with. The thread
// checks for it with a type assertion.
type SettingsRecorder interface {
	RecordTurnSettings(TurnSettings)
}

// TurnSnapshotter keeps the working tree around each turn (gocodex's rewind with files). A
// failure is reported to the person as a warning; it never stops the turn.
type TurnSnapshotter interface {
	// BeginTurn records the tree before the turn's first tool runs.
	BeginTurn(ctx context.Context, turnID string) error
	// EndTurn records the tree after a turn that began.
	EndTurn(ctx context.Context, turnID string) error
	// QuietTurn records a turn that ran no tool, so changed nothing.
	QuietTurn(ctx context.Context, turnID string) error
}

// MessageHistory is the cross-session message history (history.jsonl). Optional.
type MessageHistory interface {
	Append(threadID, text string) error
	Lookup(logID uint64, offset int) (*protocol.HistoryEntry, bool)
}

// ThreadConfig is everything a thread is started with. The lead wiring (cmd/gocodex) builds
// it from the resolved config; tests build it by hand. Zero values are safe defaults unless
// noted.
type ThreadConfig struct {
	// Model is the slug sent to the model (required). ModelProviderID is reported in
	// session_configured.
	Model           string
	ModelProviderID string
	// ModelInfo describes Model. Catalog, when set, is asked for the info of a model a
	// turn switches to (user_turn / override_turn_context); without it the info is kept.
	ModelInfo ModelInfo
	Catalog   func(slug string) ModelInfo
	// Streamer talks to the model (required).
	Streamer ModelStreamer

	// Cwd is the working directory (absolute, required).
	Cwd            string
	ApprovalPolicy protocol.AskForApproval
	SandboxPolicy  protocol.SandboxPolicy
	// WritableRoots resolves the writable roots shown in the permissions text; nil shows
	// cwd only for workspace-write.
	WritableRoots func(p protocol.SandboxPolicy, cwd string) []string

	// ReasoningEffort and ReasoningSummary override the model defaults ("" keeps them).
	ReasoningEffort  string
	ReasoningSummary string
	// Verbosity overrides the model default `text.verbosity`.
	Verbosity string
	// ServiceTier is config `service_tier` ("fast" is sent as "priority").
	ServiceTier string

	// BaseInstructions, when set, replaces the model's base instructions (config
	// base_instructions or the contents of model_instructions_file; see
	// the built-in base instructions).
	BaseInstructions string
	// InstructionsField sends the base instructions in the request's `instructions` field,
	// as Codex did before 0.169. By default they go, like Codex 0.169 sends them, as a
	// developer message in front of the input (not recorded in history).
	InstructionsField bool
	// DeveloperInstructions is config developer_instructions.
	DeveloperInstructions string
	// UserInstructions is the AGENTS.md text (gathered from config `instructions` and AGENTS.md). When Agents is set
	// instead, StartThread discovers it (Agents.Cwd defaults to Cwd).
	UserInstructions string
	Agents           *AgentsOptions
	// Skills are listed to the model and loaded when a turn asks for them (nil: none).
	Skills *Skills
	// Shell and Timezone go into <environment_context>; "" leaves them out.
	Shell    string
	Timezone string

	// ToolHandlers are the built-in tool handlers keyed by tool name (the built-in tool names: shell, exec_command, apply_patch, ...). A tool
	// the model's catalog entry asks for is offered only when it has a handler here.
	ToolHandlers map[string]tool.Handler
	// ExtraTools are offered to every model after the built-ins (MCP namespaces, dynamic
	// tools).
	ExtraTools []tool.Handler
	// ExtraToolsFunc, when set, is asked at the start of every turn for more tools, offered
	// after ExtraTools: tools that come and go while the thread lives (MCP servers added by a
	// config reload).
	ExtraToolsFunc func() []tool.Handler

	// OutputSchema constrains the final answer of every turn (exec --output-schema); a
	// turn's own schema wins.
	OutputSchema json.RawMessage
	// ReviewModel is the model reviews run with (config review_model); "" uses the thread's.
	ReviewModel string
	// RequestHeaders are added to every model request of the thread (a reviewer's
	// x-openai-subagent and x-codex-parent-thread-id).
	RequestHeaders map[string]string
	// InstallationID goes into the request's client_metadata.
	InstallationID string

	// TurnTrigger, when set, is reported as turn_started's turn_attribution.turn_trigger
	// (Codex's exec face says "exec").
	TurnTrigger string

	// ThreadID forces the thread id (resume); "" makes a new UUIDv7.
	ThreadID string
	// InitialHistory seeds the history (resume/fork); the initial context is then not
	// injected again.
	InitialHistory []protocol.ResponseItem
	// HistoryLogID and HistoryEntryCount describe the message history for
	// session_configured; History serves get_history_entry_request (nil answers "no entry").
	HistoryLogID      uint64
	HistoryEntryCount int
	History           MessageHistory
	// RolloutPath is reported in session_configured.
	RolloutPath string
	// ForkedFromID and InitialMessages describe a resumed or forked thread in
	// session_configured: the thread it was forked from, and its past events for a face to
	// replay.
	ForkedFromID    string
	InitialMessages []protocol.EventMsg
	// InitialUsage, when set, restores the token usage of a resumed thread (its last
	// token_count), so automatic compaction knows how full the context already is.
	InitialUsage *protocol.TokenUsageInfo

	// CompactPrompt replaces our summarisation request (config compact_prompt); "" keeps
	// the built-in summarisation prompt.
	CompactPrompt string
	// UserShell runs the commands the person types themselves (run_user_shell_command); nil
	// runs them in $SHELL with the process environment.
	UserShell UserShellRunner
	// UserShellTimeout bounds each such command; 0 leaves it to the runner (an hour).
	UserShellTimeout time.Duration
	// OnCleanBackgroundTerminals is called for clean_background_terminals: the owner of the
	// tool resources (the unified-exec manager) kills the sessions the model left running.
	OnCleanBackgroundTerminals func()
	// BackgroundTerminals lists and ends those sessions one by one (the app-server's
	// thread/backgroundTerminals/list and terminate); nil when the tools keep none.
	BackgroundTerminals BackgroundTerminals
	// OnStarted, when set, is called once right after session_configured with a function
	// that emits events outside any turn (MCP startup progress) until the thread ends; it
	// may be called from any goroutine.
	OnStarted func(emit func(protocol.EventMsg))
	// ContextMessages are developer messages added to the thread's initial context after
	// its developer message (a multi-agent root's team instructions).
	ContextMessages []protocol.ResponseItem
	// OnInterrupt, when set, is called when a client interrupts the thread (Op::Interrupt),
	// before its turn is aborted: the host stops the thread's sub-agents.
	OnInterrupt func()
	// ListMcpTools answers list_mcp_tools (the MCP client manager); nil answers with empty
	// maps.
	ListMcpTools func(ctx context.Context) protocol.McpListToolsResponseEvent

	// Hooks runs the person's lifecycle hooks (SessionStart, UserPromptSubmit, Pre/PostToolUse,
	// Stop); nil runs none.
	Hooks Hooks

	// TurnSnapshots records the working tree before and after each turn, so a rewind can
	// restore the files turns changed; nil records nothing.
	TurnSnapshots TurnSnapshotter

	Recorder Recorder
	Logger   *slog.Logger
	// Now is the clock (current_date, timestamps); nil means time.Now.
	Now func() time.Time
}

// BackgroundTerminals are the exec_command sessions a thread's model left running.
type BackgroundTerminals interface {
	Terminals() []BackgroundTerminal
	// Terminate ends one, reported as ended (exit code -1); false when none has the id.
	Terminate(processID string) bool
}

// BackgroundTerminal is one running session: its id, the call that started it, the command
// as the model wrote it, and where it runs.
type BackgroundTerminal struct {
	ProcessID, CallID, Command, Cwd string
}
