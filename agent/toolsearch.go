package agent

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// toolSearchTool is the name a client-executed tool_search call is routed by (its spec,
// `{"type":"tool_search",…}`, has no name of its own).
const toolSearchTool = "tool_search"

// toolSearchCall reads a `tool_search_call` output item (kept as an OtherItem) as a call of
// the tool_search tool: `{"type":"tool_search_call","call_id":…,"execution":"client",
// "arguments":{"query":…}}`. Only client-executed searches are run here.
func toolSearchCall(it protocol.OtherItem) (tool.Call, bool) {
	var c struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Execution string          `json:"execution"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(it.Raw, &c) != nil || c.Type != "tool_search_call" || c.CallID == "" || c.Execution != "client" {
		return tool.Call{}, false
	}
	args := string(c.Arguments)
	// The arguments may come as a JSON string holding the object, as function calls' do.
	var s string
	if json.Unmarshal(c.Arguments, &s) == nil {
		args = s
	}
	return tool.Call{Kind: tool.ToolSearchCall, CallID: c.CallID, Name: toolSearchTool, Arguments: args}, true
}

// toolSearchOutput answers a tool_search call as Codex 0.169 does: the found tools (output, a
// JSON array of specs; a handler's error text is not one, and the model is then told no
// tools were found) in a `tool_search_output` item the following requests carry, which is
// how the Responses API offers them.
func toolSearchOutput(callID, output string) protocol.ResponseItem {
	tools := json.RawMessage(output)
	var list []json.RawMessage
	if json.Unmarshal(tools, &list) != nil {
		tools = json.RawMessage("[]")
	}
	raw, _ := json.Marshal(struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Status    string          `json:"status"`
		Execution string          `json:"execution"`
		Tools     json.RawMessage `json:"tools"`
	}{"tool_search_output", callID, "completed", "client", tools})
	return protocol.OtherItem{Raw: raw}
}
