package protocol

import (
	"encoding/json"
	"fmt"
)

// Submission is one entry of the submission queue: a client request and the id its events
// will carry.
type Submission struct {
	ID string `json:"id"`
	Op Op     `json:"op"`
}

// UnmarshalJSON decodes the op through DecodeOp.
func (s *Submission) UnmarshalJSON(data []byte) error {
	var w struct {
		ID string          `json:"id"`
		Op json.RawMessage `json:"op"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if len(w.Op) == 0 {
		return fmt.Errorf("submission: missing field `op`")
	}
	op, err := DecodeOp(w.Op)
	if err != nil {
		return err
	}
	*s = Submission{ID: w.ID, Op: op}
	return nil
}

// Op is a request from the client. The concrete types are the *Op structs of this file.
type Op interface {
	OpType() string
	isOp()
}

// UserInputOp sends user input to the thread, with the thread's current settings.
type UserInputOp struct {
	Items []InputItem `json:"items"`
	// FinalOutputJSONSchema constrains the final answer when set.
	FinalOutputJSONSchema json.RawMessage `json:"final_output_json_schema,omitempty"`
}

// UserTurnOp sends user input together with the settings for this turn (and later ones).
type UserTurnOp struct {
	Items          []InputItem    `json:"items"`
	Cwd            string         `json:"cwd"`
	ApprovalPolicy AskForApproval `json:"approval_policy"`
	SandboxPolicy  SandboxPolicy  `json:"sandbox_policy"`
	Model          string         `json:"model"`
	// Effort is the reasoning effort ("minimal" … "xhigh"); empty means the model default.
	Effort                string          `json:"effort,omitempty"`
	Summary               string          `json:"summary"`
	FinalOutputJSONSchema json.RawMessage `json:"final_output_json_schema,omitempty"`
	// CollaborationMode, when set, switches the thread's collaboration mode from this turn on.
	CollaborationMode *CollaborationMode `json:"collaboration_mode,omitempty"`
}

// OverrideTurnContextOp changes the thread's settings for later turns without input. Nil
// fields are left as they are.
type OverrideTurnContextOp struct {
	Cwd            *string         `json:"cwd,omitempty"`
	ApprovalPolicy *AskForApproval `json:"approval_policy,omitempty"`
	SandboxPolicy  *SandboxPolicy  `json:"sandbox_policy,omitempty"`
	Model          *string         `json:"model,omitempty"`
	// Effort is doubly optional in Codex: absent leaves it, null clears it. EffortSet says
	// the field was present.
	Effort  *string `json:"effort,omitempty"`
	Summary *string `json:"summary,omitempty"`
	// CollaborationMode switches the collaboration mode of later turns.
	CollaborationMode *CollaborationMode `json:"collaboration_mode,omitempty"`
	// ServiceTier is the processing tier of later turns ("fast" is priority processing,
	// "default" the provider's own), as the TUI's /fast sets it.
	ServiceTier *string `json:"service_tier,omitempty"`
}

// InterruptOp aborts the running turn.
type InterruptOp struct{}

// ExecApprovalOp answers an exec approval request.
type ExecApprovalOp struct {
	// ID is the approval id (the call id) from the request.
	ID string `json:"id"`
	// TurnID is the turn the request belongs to, when the client knows it.
	TurnID   string         `json:"turn_id,omitempty"`
	Decision ReviewDecision `json:"decision"`
}

// PatchApprovalOp answers a patch approval request.
type PatchApprovalOp struct {
	ID       string         `json:"id"`
	Decision ReviewDecision `json:"decision"`
}

// AddToHistoryOp appends a line to the cross-session message history.
type AddToHistoryOp struct {
	Text string `json:"text"`
}

// GetHistoryEntryRequestOp asks for one history entry.
type GetHistoryEntryRequestOp struct {
	Offset int    `json:"offset"`
	LogID  uint64 `json:"log_id"`
}

// ShutdownOp stops the thread; ShutdownCompleteEvent answers it.
type ShutdownOp struct{}

// CompactOp summarises the conversation to free context.
type CompactOp struct{}

// ThreadRollbackOp drops the last NumTurns user turns from the thread.
type ThreadRollbackOp struct {
	NumTurns int `json:"num_turns"`
}

// InjectItemsOp appends response items (Responses API JSON, kept raw) to the thread's
// history and rollout without starting a turn: the app-server's thread/inject_items. The
// model sees them from the next request on.
type InjectItemsOp struct {
	Items []json.RawMessage `json:"items"`
}

// ListMcpToolsOp asks for the tools of every MCP server.
type ListMcpToolsOp struct{}

// CleanBackgroundTerminalsOp kills the unified-exec sessions the model left running.
type CleanBackgroundTerminalsOp struct{}

// RunUserShellCommandOp runs a command the person typed (the `!cmd` of the UI).
type RunUserShellCommandOp struct {
	Command string `json:"command"`
}

func (UserInputOp) OpType() string                { return "user_input" }
func (UserTurnOp) OpType() string                 { return "user_turn" }
func (OverrideTurnContextOp) OpType() string      { return "override_turn_context" }
func (InterruptOp) OpType() string                { return "interrupt" }
func (ExecApprovalOp) OpType() string             { return "exec_approval" }
func (PatchApprovalOp) OpType() string            { return "patch_approval" }
func (AddToHistoryOp) OpType() string             { return "add_to_history" }
func (GetHistoryEntryRequestOp) OpType() string   { return "get_history_entry_request" }
func (ShutdownOp) OpType() string                 { return "shutdown" }
func (CompactOp) OpType() string                  { return "compact" }
func (ThreadRollbackOp) OpType() string           { return "thread_rollback" }
func (InjectItemsOp) OpType() string              { return "inject_items" }
func (ListMcpToolsOp) OpType() string             { return "list_mcp_tools" }
func (CleanBackgroundTerminalsOp) OpType() string { return "clean_background_terminals" }
func (RunUserShellCommandOp) OpType() string      { return "run_user_shell_command" }

func (UserInputOp) isOp()                {}
func (UserTurnOp) isOp()                 {}
func (OverrideTurnContextOp) isOp()      {}
func (InterruptOp) isOp()                {}
func (ExecApprovalOp) isOp()             {}
func (PatchApprovalOp) isOp()            {}
func (AddToHistoryOp) isOp()             {}
func (GetHistoryEntryRequestOp) isOp()   {}
func (ShutdownOp) isOp()                 {}
func (CompactOp) isOp()                  {}
func (ThreadRollbackOp) isOp()           {}
func (InjectItemsOp) isOp()              {}
func (ListMcpToolsOp) isOp()             {}
func (CleanBackgroundTerminalsOp) isOp() {}
func (RunUserShellCommandOp) isOp()      {}

func (o UserInputOp) MarshalJSON() ([]byte, error) {
	type plain UserInputOp
	p := plain(o)
	if p.Items == nil {
		p.Items = []InputItem{}
	}
	return marshalTagged("type", o.OpType(), p)
}

func (o UserTurnOp) MarshalJSON() ([]byte, error) {
	type plain UserTurnOp
	p := plain(o)
	if p.Items == nil {
		p.Items = []InputItem{}
	}
	return marshalTagged("type", o.OpType(), p)
}

func (o OverrideTurnContextOp) MarshalJSON() ([]byte, error) {
	type plain OverrideTurnContextOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o InterruptOp) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", o.OpType(), struct{}{})
}

func (o ExecApprovalOp) MarshalJSON() ([]byte, error) {
	type plain ExecApprovalOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o PatchApprovalOp) MarshalJSON() ([]byte, error) {
	type plain PatchApprovalOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o AddToHistoryOp) MarshalJSON() ([]byte, error) {
	type plain AddToHistoryOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o GetHistoryEntryRequestOp) MarshalJSON() ([]byte, error) {
	type plain GetHistoryEntryRequestOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o ShutdownOp) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", o.OpType(), struct{}{})
}

func (o CompactOp) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", o.OpType(), struct{}{})
}

func (o ThreadRollbackOp) MarshalJSON() ([]byte, error) {
	type plain ThreadRollbackOp
	return marshalTagged("type", o.OpType(), plain(o))
}

func (o ListMcpToolsOp) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", o.OpType(), struct{}{})
}

func (o CleanBackgroundTerminalsOp) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", o.OpType(), struct{}{})
}

func (o InjectItemsOp) MarshalJSON() ([]byte, error) {
	type plain InjectItemsOp
	p := plain(o)
	if p.Items == nil {
		p.Items = []json.RawMessage{}
	}
	return marshalTagged("type", o.OpType(), p)
}

func (o RunUserShellCommandOp) MarshalJSON() ([]byte, error) {
	type plain RunUserShellCommandOp
	return marshalTagged("type", o.OpType(), plain(o))
}

// DecodeOp reads one op. An unknown "type" is an *UnknownVariantError naming it.
func DecodeOp(data []byte) (Op, error) {
	tag, err := readTag(data, "type")
	if err != nil {
		return nil, fmt.Errorf("op: %w", err)
	}
	var op Op
	switch tag {
	case "user_input":
		op, err = decodeInto[UserInputOp](data)
	case "user_turn":
		op, err = decodeInto[UserTurnOp](data)
	case "override_turn_context":
		op, err = decodeInto[OverrideTurnContextOp](data)
	case "interrupt":
		op, err = decodeInto[InterruptOp](data)
	case "exec_approval":
		op, err = decodeInto[ExecApprovalOp](data)
	case "patch_approval":
		op, err = decodeInto[PatchApprovalOp](data)
	case "add_to_history":
		op, err = decodeInto[AddToHistoryOp](data)
	case "get_history_entry_request":
		op, err = decodeInto[GetHistoryEntryRequestOp](data)
	case "shutdown":
		op, err = decodeInto[ShutdownOp](data)
	case "compact":
		op, err = decodeInto[CompactOp](data)
	case "thread_rollback":
		op, err = decodeInto[ThreadRollbackOp](data)
	case "inject_items":
		op, err = decodeInto[InjectItemsOp](data)
	case "goal_turn":
		op, err = decodeInto[GoalTurnOp](data)
	case "list_mcp_tools":
		op, err = decodeInto[ListMcpToolsOp](data)
	case "clean_background_terminals":
		op, err = decodeInto[CleanBackgroundTerminalsOp](data)
	case "run_user_shell_command":
		op, err = decodeInto[RunUserShellCommandOp](data)
	case "review":
		op, err = decodeInto[ReviewOp](data)
	case "user_input_answer", "request_user_input_response":
		op, err = decodeInto[UserInputAnswerOp](data)
	default:
		return nil, &UnknownVariantError{Enum: "Op", Variant: tag}
	}
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", tag, err)
	}
	return normalizeOp(op), nil
}

// normalizeOp spells out defaults of absent fields (approval on-request, sandbox read-only,
// decision denied) so a decoded op equals what its own encoding decodes to.
func normalizeOp(op Op) Op {
	switch o := op.(type) {
	case ReviewOp:
		if o.ReviewRequest.Target.Type == "" {
			o.ReviewRequest.Target.Type = ReviewUncommitted
		}
		return o
	case UserTurnOp:
		o.ApprovalPolicy.Mode = o.ApprovalPolicy.Effective()
		o.SandboxPolicy.Mode = o.SandboxPolicy.EffectiveMode()
		return o
	case ExecApprovalOp:
		o.Decision.Kind = o.Decision.EffectiveKind()
		return o
	case PatchApprovalOp:
		o.Decision.Kind = o.Decision.EffectiveKind()
		return o
	}
	return op
}

// decodeInto unmarshals a variant. Variants define MarshalJSON only, so decoding goes
// straight through their struct tags (the "type" key is ignored as an unknown field).
func decodeInto[T any](data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}
