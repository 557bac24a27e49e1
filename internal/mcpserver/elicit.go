package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/shellquote"
	"github.com/gocodex/gocodex/protocol"
)

// methodElicit is MCP's elicitation request.
const methodElicit = "elicitation/create"

// The codex_elicitation kinds.
const (
	elicitExec  = "exec-approval"
	elicitPatch = "patch-approval"
)

// requestedSchema is the empty form Codex asks for: the answer is the action (or a
// `decision`), not form data.
type requestedSchema struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

func emptySchema() requestedSchema {
	return requestedSchema{Type: "object", Properties: map[string]any{}}
}

// execElicitation is the elicitation/create params of an exec approval: MCP's message and
// requestedSchema, then the fields a client uses to tie it to the tool call and the event.
type execElicitation struct {
	Message            string                   `json:"message"`
	RequestedSchema    requestedSchema          `json:"requestedSchema"`
	ThreadID           string                   `json:"threadId"`
	CodexElicitation   string                   `json:"codex_elicitation"`
	CodexMcpToolCallID string                   `json:"codex_mcp_tool_call_id"`
	CodexEventID       string                   `json:"codex_event_id"`
	CodexCallID        string                   `json:"codex_call_id"`
	CodexCommand       []string                 `json:"codex_command"`
	CodexCwd           string                   `json:"codex_cwd"`
	CodexParsedCmd     []protocol.ParsedCommand `json:"codex_parsed_cmd"`
}

// patchElicitation is the elicitation/create params of a patch approval; the changes are
// the request's file changes, keyed by path.
type patchElicitation struct {
	Message            string                         `json:"message"`
	RequestedSchema    requestedSchema                `json:"requestedSchema"`
	ThreadID           string                         `json:"threadId"`
	CodexElicitation   string                         `json:"codex_elicitation"`
	CodexMcpToolCallID string                         `json:"codex_mcp_tool_call_id"`
	CodexEventID       string                         `json:"codex_event_id"`
	CodexCallID        string                         `json:"codex_call_id"`
	CodexReason        *string                        `json:"codex_reason,omitempty"`
	CodexGrantRoot     *string                        `json:"codex_grant_root,omitempty"`
	CodexChanges       map[string]protocol.FileChange `json:"codex_changes"`
}

// callRef ties an elicitation to the MCP tool call and the event that caused it.
type callRef struct {
	threadID   string
	toolCallID string
	eventID    string
}

func execParams(ref callRef, ev protocol.ExecApprovalRequestEvent) execElicitation {
	parsed := ev.ParsedCmd
	if parsed == nil {
		parsed = []protocol.ParsedCommand{}
	}
	return execElicitation{
		Message:            fmt.Sprintf("Allow Codex to run `%s` in `%s`?", shellquote.Join(ev.Command), ev.Cwd),
		RequestedSchema:    emptySchema(),
		ThreadID:           ref.threadID,
		CodexElicitation:   elicitExec,
		CodexMcpToolCallID: ref.toolCallID,
		CodexEventID:       ref.eventID,
		CodexCallID:        ev.CallID,
		CodexCommand:       ev.Command,
		CodexCwd:           ev.Cwd,
		CodexParsedCmd:     parsed,
	}
}

func patchParams(ref callRef, ev protocol.ApplyPatchApprovalRequestEvent) patchElicitation {
	var lines []string
	if ev.Reason != nil && *ev.Reason != "" {
		lines = append(lines, *ev.Reason)
	}
	lines = append(lines, "Allow Codex to apply proposed code changes?")
	changes := ev.Changes
	if changes == nil {
		changes = map[string]protocol.FileChange{}
	}
	return patchElicitation{
		Message:            strings.Join(lines, "\n"),
		RequestedSchema:    emptySchema(),
		ThreadID:           ref.threadID,
		CodexElicitation:   elicitPatch,
		CodexMcpToolCallID: ref.toolCallID,
		CodexEventID:       ref.eventID,
		CodexCallID:        ev.CallID,
		CodexReason:        ev.Reason,
		CodexGrantRoot:     ev.GrantRoot,
		CodexChanges:       changes,
	}
}

// decisionOf reads a client's answer to an approval elicitation. Codex's own clients answer
// {"decision": <ReviewDecision>}; plain MCP clients answer with an action, where accept
// approves (or carries a decision in its content), decline denies and cancel aborts the
// turn, as the app-server maps them. Anything unreadable denies: when in doubt, do not run.
func decisionOf(result json.RawMessage) (protocol.ReviewDecision, error) {
	denied := protocol.ReviewDecision{Kind: protocol.DecisionDenied}
	var r struct {
		Decision json.RawMessage `json:"decision"`
		Action   string          `json:"action"`
		Content  struct {
			Decision json.RawMessage `json:"decision"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return denied, fmt.Errorf("read elicitation answer: %w", err)
	}
	if len(r.Decision) > 0 && string(r.Decision) != "null" {
		return parseDecision(r.Decision)
	}
	switch r.Action {
	case "accept":
		if len(r.Content.Decision) > 0 && string(r.Content.Decision) != "null" {
			return parseDecision(r.Content.Decision)
		}
		return protocol.ReviewDecision{Kind: protocol.DecisionApproved}, nil
	case "decline":
		return denied, nil
	case "cancel":
		return protocol.ReviewDecision{Kind: protocol.DecisionAbort}, nil
	}
	return denied, fmt.Errorf("elicitation answer has neither a decision nor a known action: %s", truncate(result))
}

func parseDecision(raw json.RawMessage) (protocol.ReviewDecision, error) {
	var d protocol.ReviewDecision
	if err := json.Unmarshal(raw, &d); err != nil {
		return protocol.ReviewDecision{Kind: protocol.DecisionDenied}, fmt.Errorf("read decision: %w", err)
	}
	return d, nil
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}
