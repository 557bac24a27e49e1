package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time span written as serde writes std::time::Duration:
// {"secs":1,"nanos":500000000}.
type Duration time.Duration

// maxDurationSecs keeps secs*1e9 inside an int64.
const maxDurationSecs = uint64(1<<63-1) / uint64(time.Second)

// MarshalJSON writes {"secs","nanos"}.
func (d Duration) MarshalJSON() ([]byte, error) {
	td := time.Duration(d)
	if td < 0 {
		td = 0
	}
	return fmt.Appendf(nil, `{"secs":%d,"nanos":%d}`, int64(td/time.Second), int64(td%time.Second)), nil
}

// UnmarshalJSON reads {"secs","nanos"}, or a number of seconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var w struct {
			Secs  uint64 `json:"secs"`
			Nanos uint32 `json:"nanos"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		if w.Secs > maxDurationSecs || w.Nanos >= uint32(time.Second) {
			return fmt.Errorf("duration out of range")
		}
		*d = Duration(time.Duration(w.Secs)*time.Second + time.Duration(w.Nanos))
		return nil
	}
	var secs float64
	if err := json.Unmarshal(data, &secs); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	if secs < 0 || secs > float64(maxDurationSecs) {
		return fmt.Errorf("duration out of range")
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// ExecOutputStream names the stream of an output chunk.
type ExecOutputStream string

// The output streams.
const (
	StreamStdout ExecOutputStream = "stdout"
	StreamStderr ExecOutputStream = "stderr"
)

// ExecCommandSource says who asked for the command.
type ExecCommandSource string

// The command sources.
const (
	SourceAgent                  ExecCommandSource = "agent"
	SourceUserShell              ExecCommandSource = "user_shell"
	SourceUnifiedExecStartup     ExecCommandSource = "unified_exec_startup"
	SourceUnifiedExecInteraction ExecCommandSource = "unified_exec_interaction"
)

// ParsedCommand is Codex's reading of a shell command for display: read (Name, Path),
// list_files (Path), search (Query, Path) or unknown. One struct holds every kind's fields;
// MarshalJSON writes only the ones of Type, with null for absent optional ones.
type ParsedCommand struct {
	Type  string  `json:"type"`
	Cmd   string  `json:"cmd"`
	Name  string  `json:"name,omitempty"`
	Query *string `json:"query,omitempty"`
	Path  *string `json:"path,omitempty"`
}

// UnmarshalJSON keeps only the fields of the command's kind, so that a decoded value is
// what its encoding decodes to.
func (p *ParsedCommand) UnmarshalJSON(data []byte) error {
	type plain ParsedCommand
	var w plain
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out := ParsedCommand{Type: w.Type, Cmd: w.Cmd}
	switch w.Type {
	case "read":
		out.Name = w.Name
		out.Path = w.Path
		if out.Path == nil {
			out.Path = new(string)
		}
	case "list_files":
		out.Path = w.Path
	case "search":
		out.Query, out.Path = w.Query, w.Path
	case "":
		out.Type = "unknown"
	}
	*p = out
	return nil
}

// MarshalJSON writes the fields of the command's kind in Codex's order.
func (p ParsedCommand) MarshalJSON() ([]byte, error) {
	switch p.Type {
	case "read":
		path := ""
		if p.Path != nil {
			path = *p.Path
		}
		return marshalTagged("type", p.Type, struct {
			Cmd  string `json:"cmd"`
			Name string `json:"name"`
			Path string `json:"path"`
		}{p.Cmd, p.Name, path})
	case "list_files":
		return marshalTagged("type", p.Type, struct {
			Cmd  string  `json:"cmd"`
			Path *string `json:"path"`
		}{p.Cmd, p.Path})
	case "search":
		return marshalTagged("type", p.Type, struct {
			Cmd   string  `json:"cmd"`
			Query *string `json:"query"`
			Path  *string `json:"path"`
		}{p.Cmd, p.Query, p.Path})
	}
	typ := p.Type
	if typ == "" {
		typ = "unknown"
	}
	return marshalTagged("type", typ, struct {
		Cmd string `json:"cmd"`
	}{p.Cmd})
}

// ExecCommandBeginEvent announces a command about to run.
type ExecCommandBeginEvent struct {
	CallID           string            `json:"call_id"`
	ProcessID        string            `json:"process_id,omitempty"`
	TurnID           string            `json:"turn_id"`
	Command          []string          `json:"command"`
	Cwd              string            `json:"cwd"`
	ParsedCmd        []ParsedCommand   `json:"parsed_cmd"`
	Source           ExecCommandSource `json:"source,omitempty"`
	InteractionInput *string           `json:"interaction_input,omitempty"`
}

// ExecCommandOutputDeltaEvent is a chunk of a running command's output; the chunk is
// base64 on the wire.
type ExecCommandOutputDeltaEvent struct {
	CallID string           `json:"call_id"`
	Stream ExecOutputStream `json:"stream"`
	Chunk  []byte           `json:"chunk"`
}

// TerminalInteractionEvent records input the model wrote to a running terminal session.
type TerminalInteractionEvent struct {
	CallID    string `json:"call_id"`
	ProcessID string `json:"process_id"`
	Stdin     string `json:"stdin"`
}

// ExecCommandEndEvent reports a finished command.
type ExecCommandEndEvent struct {
	CallID           string            `json:"call_id"`
	ProcessID        string            `json:"process_id,omitempty"`
	TurnID           string            `json:"turn_id"`
	Command          []string          `json:"command"`
	Cwd              string            `json:"cwd"`
	ParsedCmd        []ParsedCommand   `json:"parsed_cmd"`
	Source           ExecCommandSource `json:"source,omitempty"`
	InteractionInput *string           `json:"interaction_input,omitempty"`
	Stdout           string            `json:"stdout"`
	Stderr           string            `json:"stderr"`
	AggregatedOutput string            `json:"aggregated_output"`
	ExitCode         int               `json:"exit_code"`
	Duration         Duration          `json:"duration"`
	FormattedOutput  string            `json:"formatted_output"`
	// Status is "completed", "failed" or "declined" (the person refused the command); empty
	// means it is read from the exit code.
	Status ExecCommandStatus `json:"status,omitempty"`
}

// ExecCommandStatus is the outcome of a command.
type ExecCommandStatus string

// The command outcomes.
const (
	ExecCompleted ExecCommandStatus = "completed"
	ExecFailed    ExecCommandStatus = "failed"
	ExecDeclined  ExecCommandStatus = "declined"
)

// ExecApprovalRequestEvent asks the person whether a command may run.
type ExecApprovalRequestEvent struct {
	CallID string `json:"call_id"`
	// ApprovalID differs from CallID when one call asks more than once.
	ApprovalID                  string          `json:"approval_id,omitempty"`
	TurnID                      string          `json:"turn_id"`
	Command                     []string        `json:"command"`
	Cwd                         string          `json:"cwd"`
	Reason                      *string         `json:"reason,omitempty"`
	ProposedExecpolicyAmendment []string        `json:"proposed_execpolicy_amendment,omitempty"`
	ParsedCmd                   []ParsedCommand `json:"parsed_cmd"`
	// McpToolCall, set when the request is about an MCP tool call (a gocodex addition: the
	// command is then "mcp <server> <tool> <arguments>"), lets an app-server put it to its
	// client as Codex 0.169 does, an MCP elicitation.
	McpToolCall *McpToolCallApproval `json:"mcp_tool_call,omitempty"`
}

// McpToolCallApproval is the MCP tool call an approval request is about.
type McpToolCallApproval struct {
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Description string          `json:"description,omitempty"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
}

// ApplyPatchApprovalRequestEvent asks the person whether a patch may be applied.
type ApplyPatchApprovalRequestEvent struct {
	CallID    string                `json:"call_id"`
	TurnID    string                `json:"turn_id"`
	Changes   map[string]FileChange `json:"changes"`
	Reason    *string               `json:"reason,omitempty"`
	GrantRoot *string               `json:"grant_root,omitempty"`
}

// PatchApplyBeginEvent announces a patch about to be applied.
type PatchApplyBeginEvent struct {
	CallID       string                `json:"call_id"`
	TurnID       string                `json:"turn_id"`
	AutoApproved bool                  `json:"auto_approved"`
	Changes      map[string]FileChange `json:"changes"`
}

// PatchApplyStatus is the outcome of a patch.
type PatchApplyStatus string

// The patch outcomes.
const (
	PatchCompleted PatchApplyStatus = "completed"
	PatchFailed    PatchApplyStatus = "failed"
	PatchDeclined  PatchApplyStatus = "declined"
)

// PatchApplyEndEvent reports a finished patch.
type PatchApplyEndEvent struct {
	CallID  string                `json:"call_id"`
	TurnID  string                `json:"turn_id"`
	Stdout  string                `json:"stdout"`
	Stderr  string                `json:"stderr"`
	Success bool                  `json:"success"`
	Changes map[string]FileChange `json:"changes"`
	Status  PatchApplyStatus      `json:"status,omitempty"`
}

// ViewImageToolCallEvent says the model attached a local image.
type ViewImageToolCallEvent struct {
	CallID string `json:"call_id"`
	Path   string `json:"path"`
}

// WebSearchBeginEvent announces a hosted web search.
type WebSearchBeginEvent struct {
	CallID string `json:"call_id"`
}

// WebSearchEndEvent reports a finished web search.
type WebSearchEndEvent struct {
	CallID string          `json:"call_id"`
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action,omitempty"`
}

// McpInvocation names an MCP tool call.
type McpInvocation struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// McpToolCallBeginEvent announces an MCP tool call.
type McpToolCallBeginEvent struct {
	CallID     string        `json:"call_id"`
	Invocation McpInvocation `json:"invocation"`
}

// McpToolResult is Rust's Result<CallToolResult, String> as serde writes it:
// {"Ok":{...}} or {"Err":"..."}.
type McpToolResult struct {
	Ok  json.RawMessage
	Err *string
}

// MarshalJSON writes {"Ok":…} or {"Err":…}.
func (r McpToolResult) MarshalJSON() ([]byte, error) {
	if r.Err != nil {
		return Marshal(struct {
			Err string `json:"Err"`
		}{*r.Err})
	}
	return Marshal(struct {
		Ok json.RawMessage `json:"Ok"`
	}{r.Ok})
}

// UnmarshalJSON reads {"Ok":…} or {"Err":…}.
func (r *McpToolResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Ok  json.RawMessage `json:"Ok"`
		Err *string         `json:"Err"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Err == nil && len(w.Ok) == 0 {
		return fmt.Errorf("mcp tool result: expected `Ok` or `Err`")
	}
	*r = McpToolResult{Ok: w.Ok, Err: w.Err}
	return nil
}

// IsSuccess is true for an Ok result without is_error.
func (r McpToolResult) IsSuccess() bool {
	if r.Err != nil {
		return false
	}
	var res struct {
		IsError *bool `json:"isError"`
	}
	_ = json.Unmarshal(r.Ok, &res)
	return res.IsError == nil || !*res.IsError
}

// McpToolCallEndEvent reports a finished MCP tool call.
type McpToolCallEndEvent struct {
	CallID     string        `json:"call_id"`
	Invocation McpInvocation `json:"invocation"`
	Duration   Duration      `json:"duration"`
	Result     McpToolResult `json:"result"`
}

// McpStartupUpdateEvent reports one MCP server's startup state; Status is
// {"state":"starting"|"ready"|"cancelled"} or {"state":"failed","error":…}.
type McpStartupUpdateEvent struct {
	Server string          `json:"server"`
	Status json.RawMessage `json:"status"`
}

// McpStartupFailure names a server that did not start.
type McpStartupFailure struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// McpStartupCompleteEvent summarises MCP startup.
type McpStartupCompleteEvent struct {
	Ready     []string            `json:"ready"`
	Failed    []McpStartupFailure `json:"failed"`
	Cancelled []string            `json:"cancelled"`
}

// McpListToolsResponseEvent answers ListMcpToolsOp; the MCP shapes are kept raw.
type McpListToolsResponseEvent struct {
	Tools             map[string]json.RawMessage `json:"tools"`
	Resources         map[string]json.RawMessage `json:"resources"`
	ResourceTemplates map[string]json.RawMessage `json:"resource_templates"`
	AuthStatuses      map[string]json.RawMessage `json:"auth_statuses"`
}
