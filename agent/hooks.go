package agent

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// HookEvent names a lifecycle event, spelled as in Codex's hooks.json.
type HookEvent string

// The lifecycle events a thread runs hooks for.
const (
	HookSessionStart     HookEvent = "SessionStart"
	HookUserPromptSubmit HookEvent = "UserPromptSubmit"
	HookPreToolUse       HookEvent = "PreToolUse"
	HookPostToolUse      HookEvent = "PostToolUse"
	HookStop             HookEvent = "Stop"
)

// HookInput is what a hook is told about the event. Which fields matter depends on Event:
// Source for SessionStart ("startup" or "resume"), Prompt for UserPromptSubmit, the Tool*
// fields for Pre/PostToolUse (ToolResponse for PostToolUse only), StopHookActive and
// LastAssistantMessage for Stop. TurnID is "" for none.
type HookInput struct {
	Event          HookEvent
	SessionID      string
	TurnID         string
	TranscriptPath string
	Cwd            string
	Model          string
	PermissionMode string

	Source string
	Prompt string

	ToolName     string
	ToolInput    json.RawMessage
	ToolResponse string
	ToolUseID    string

	StopHookActive       bool
	LastAssistantMessage *string
}

// HookOutcome is what the hooks of one event decided.
type HookOutcome struct {
	// Blocked stops what the event was about: the prompt does not reach the model, the tool
	// call does not run, (PostToolUse) the model gets Reason instead of the tool's output, or
	// (Stop) the turn goes on with Reason as the next prompt.
	Blocked bool
	Reason  string
	// BlockedBy is the id of the hook run that blocked (Stop's hook_prompt names it).
	BlockedBy string
	// Context are texts the hooks added, each becoming a developer message.
	Context []string
}

// Hooks runs the person's lifecycle hooks. Run runs the hooks that match in, reports each
// run through emit (hook_started, hook_completed) and returns once all have ended; a hook
// that fails is reported, never returned as an error. ThreadConfig.Hooks nil runs none.
type Hooks interface {
	Run(ctx context.Context, in HookInput, emit func(protocol.EventMsg)) HookOutcome
}
