// Package tool is the public vocabulary of tools: a spec sent to the model and a handler that
// turns one call into a result. A program embedding the agent implements Handler for its own
// tools (agent.ThreadConfig.ExtraTools); the built-in tools implement it too.
package tool

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Spec is one entry of the `tools` array of a Responses request, already in wire form
// (`{"type":"function",...}`, `{"type":"custom",...}`, `{"type":"namespace",...}`).
type Spec = json.RawMessage

// CallKind says how the model called the tool, which decides the output item's wire type.
type CallKind int

const (
	// FunctionCall arrives as `function_call` and is answered by `function_call_output`.
	FunctionCall CallKind = iota
	// CustomCall arrives as `custom_tool_call` (freeform input) and is answered by
	// `custom_tool_call_output`.
	CustomCall
	// LocalShellCall arrives as `local_shell_call` and is answered by `function_call_output`.
	LocalShellCall
	// ToolSearchCall arrives as `tool_search_call` (a client-executed tool_search, Arguments
	// its JSON arguments) and is answered by `tool_search_output`, whose `tools` are the
	// handler's Output (a JSON array of tool specs).
	ToolSearchCall
)

// Call is one tool call from the model.
type Call struct {
	Kind      CallKind
	CallID    string
	Name      string
	Namespace string
	// Arguments is the JSON argument string of a function call, or the raw input of a
	// custom tool call.
	Arguments string
}

// Env is what a handler may use while it runs: the turn's settings and the way to talk to
// the client. It is built by the engine for each call.
type Env struct {
	ThreadID string
	TurnID   string
	Cwd      string
	Approval protocol.AskForApproval
	Sandbox  protocol.SandboxPolicy
	// Mode is the turn's collaboration mode (protocol.ModePlan, protocol.ModeDefault; "" is
	// default).
	Mode string
	// Emit sends an event to the client, in order, tagged with the turn's submission id.
	Emit func(protocol.EventMsg)
	// RequestApproval asks the person (per the engine's policy wiring) and blocks until they
	// answer or ctx ends. The engine implements it; handlers never wait on events themselves.
	RequestApproval func(ctx context.Context, req ApprovalRequest) (protocol.ReviewDecision, error)
	// RequestUserInput puts questions to the person and blocks until the client answers or
	// ctx ends; the engine fills in the turn id. Nil when nobody can be asked.
	RequestUserInput func(ctx context.Context, req protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error)
}

// ApprovalRequest is what a handler asks the engine to put to the person.
type ApprovalRequest struct {
	// Exactly one of Exec or Patch is set.
	Exec  *protocol.ExecApprovalRequestEvent
	Patch *protocol.ApplyPatchApprovalRequestEvent
}

// Result is a tool's answer, a value: a failing command is a normal Result, not an error.
type Result struct {
	// Output is the text sent back to the model.
	Output string
	// ContentItems, when set, replaces Output with structured content (view_image).
	ContentItems []protocol.ContentItem
	// Success is false when the tool ran but failed (non-zero exit, patch error).
	Success bool
	// EndTurn asks the engine to end the turn after this call (ReviewDecision abort).
	EndTurn bool
	// FollowUp are items the call delivers to the conversation, recorded right after its
	// output (the messages of other agents a wait_agent call received).
	FollowUp []protocol.ResponseItem
}

// Handler runs one kind of tool. A returned error means the infrastructure failed and ends
// the turn; everything the model should see goes in the Result.
type Handler interface {
	Spec() Spec
	Handle(ctx context.Context, env *Env, call Call) (Result, error)
}

// Deferred is a Handler whose tool is not offered upfront: the registry routes its calls, but
// its spec is only shown to the model when tool_search finds it (Codex's deferred tools).
type Deferred interface {
	Handler
	Deferred() bool
}

// Options says which built-in tools a model gets; the engine fills it from the model catalog
// entry and config.
type Options struct {
	// ShellType is the catalog `shell_type`; "" means default.
	ShellType string
	// ApplyPatchToolType is the catalog `apply_patch_tool_type`; "" offers no apply_patch.
	ApplyPatchToolType string
	// NoLoginShell hides the `login` parameter (config allow_login_shell = false).
	NoLoginShell bool
	// PlanTool offers update_plan.
	PlanTool bool
	// ViewImage offers view_image (models that accept image input).
	ViewImage bool
	// RequestUserInput offers request_user_input (questions to the user).
	RequestUserInput bool
	// Hosted are the wire specs of tools the model provider runs itself (the Responses API's
	// web_search): sent last, after every other tool, and never called locally.
	Hosted []Spec
}

// UserShellResult is the outcome of a command the person typed themselves
// (run_user_shell_command), as the engine reports it.
type UserShellResult struct {
	ExitCode int
	// Stdout, Stderr and Aggregated (stdout followed by stderr) are the captured output.
	Stdout, Stderr, Aggregated string
	Duration                   time.Duration
	// TimedOut says the timeout killed the command.
	TimedOut bool
	// ModelOutput is the output as the model is told it: truncated to the thread's budget,
	// a timed-out command's prefixed with how long it ran.
	ModelOutput string
}
