package appserver

import (
	"encoding/json"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

func TestMcpElicitationAnswers(t *testing.T) {
	for in, want := range map[string]protocol.ReviewDecisionKind{
		`{"action":"accept","content":{}}`:                               protocol.DecisionApproved,
		`{"action":"accept","content":{},"_meta":{"persist":"session"}}`: protocol.DecisionApprovedForSession,
		`{"action":"accept","_meta":{"persist":"always"}}`:               protocol.DecisionApprovedForSession,
		`{"action":"decline"}`:                                           protocol.DecisionDenied,
		`{"action":"cancel"}`:                                            protocol.DecisionAbort,
	} {
		d, err := mcpElicitationDecision(json.RawMessage(in))
		if err != nil || d.Kind != want {
			t.Errorf("%s: %v %v, want %v", in, d.Kind, err, want)
		}
	}
	if _, err := mcpElicitationDecision(json.RawMessage(`{"action":"maybe"}`)); err == nil {
		t.Error("an unknown action was taken")
	}
}

// The request names the tool and its arguments in their order, as Codex 0.169's does, with
// 0.171's environmentId (null: the local environment; TypeScript marks it non-optional).
func TestMcpElicitationRequestShape(t *testing.T) {
	reason := `Allow the ts MCP server to run tool "echo"?`
	p := mcpElicitationFor("th", "tu", protocol.ExecApprovalRequestEvent{Reason: &reason, McpToolCall: &protocol.McpToolCallApproval{
		Server: "ts", Tool: "echo", Description: "Echoes the text back.", Arguments: json.RawMessage(`{"text":"hi","n":2}`)}})
	got, _ := json.Marshal(p)
	want := `{"threadId":"th","turnId":"tu","serverName":"ts","environmentId":null,"mode":"form","_meta":{"codex_approval_kind":"mcp_tool_call","persist":["session","always"],"tool_name":"echo","tool_description":"Echoes the text back.","tool_params":{"text":"hi","n":2},"tool_params_display":[{"name":"text","value":"hi","display_name":"text"},{"name":"n","value":2,"display_name":"n"}]},"message":"Allow the ts MCP server to run tool \"echo\"?","requestedSchema":{"type":"object","properties":{}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
