package appserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// An MCP tool call that needs approval is put to a v2 client as Codex 0.169 puts it: an
// mcpServer/elicitation/request in form mode with an empty schema, the tool named in _meta;
// the answer's action decides (accept runs it, and with _meta.persist "session" or "always"
// approves the tool for the session; decline refuses; cancel ends the turn).

type mcpElicitationParams struct {
	ThreadID   string `json:"threadId"`
	TurnID     string `json:"turnId"`
	ServerName string `json:"serverName"`
	// EnvironmentID (Codex 0.171) is null: the local environment, gocodex's only one.
	EnvironmentID   *string           `json:"environmentId"`
	Mode            string            `json:"mode"`
	Meta            mcpApprovalMeta   `json:"_meta"`
	Message         string            `json:"message"`
	RequestedSchema mcpRequestedEmpty `json:"requestedSchema"`
}

type mcpApprovalMeta struct {
	Kind              string               `json:"codex_approval_kind"`
	Persist           []string             `json:"persist"`
	ToolName          string               `json:"tool_name"`
	ToolDescription   string               `json:"tool_description,omitempty"`
	ToolParams        json.RawMessage      `json:"tool_params,omitempty"`
	ToolParamsDisplay []mcpToolParamToShow `json:"tool_params_display,omitempty"`
}

type mcpToolParamToShow struct {
	Name        string          `json:"name"`
	Value       json.RawMessage `json:"value"`
	DisplayName string          `json:"display_name"`
}

type mcpRequestedEmpty struct {
	Type       string   `json:"type"`
	Properties struct{} `json:"properties"`
}

func mcpElicitationFor(threadID, turnID string, m protocol.ExecApprovalRequestEvent) mcpElicitationParams {
	call := m.McpToolCall
	msg := ""
	if m.Reason != nil {
		msg = *m.Reason
	}
	meta := mcpApprovalMeta{Kind: "mcp_tool_call", Persist: []string{"session", "always"}, ToolName: call.Tool,
		ToolDescription: call.Description, ToolParams: call.Arguments, ToolParamsDisplay: paramsToShow(call.Arguments)}
	return mcpElicitationParams{ThreadID: threadID, TurnID: turnID, ServerName: call.Server, Mode: "form", Meta: meta,
		Message: msg, RequestedSchema: mcpRequestedEmpty{Type: "object"}}
}

// paramsToShow lists an arguments object's members in their order.
func paramsToShow(args json.RawMessage) []mcpToolParamToShow {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []mcpToolParamToShow
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, mcpToolParamToShow{Name: name, Value: v, DisplayName: name})
	}
	return out
}

// mcpElicitationDecision reads the client's answer.
func mcpElicitationDecision(raw json.RawMessage) (protocol.ReviewDecision, error) {
	var r struct {
		Action string `json:"action"`
		Meta   struct {
			Persist string `json:"persist"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return protocol.ReviewDecision{}, err
	}
	switch r.Action {
	case "accept":
		if r.Meta.Persist == "session" || r.Meta.Persist == "always" {
			return protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}, nil
		}
		return protocol.ReviewDecision{Kind: protocol.DecisionApproved}, nil
	case "decline":
		return protocol.ReviewDecision{Kind: protocol.DecisionDenied}, nil
	case "cancel":
		return protocol.ReviewDecision{Kind: protocol.DecisionAbort}, nil
	}
	return protocol.ReviewDecision{}, fmt.Errorf("unknown action %q", r.Action)
}
