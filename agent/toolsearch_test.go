package agent

import (
	"encoding/json"
	"testing"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// TestToolSearchCallAndOutput: a client tool_search_call becomes a call of tool_search with
// its arguments (an object, or a string holding one); a server-executed one is not run here;
// the output item carries the tools found, and no tools when the handler's output is not a
// list of tools (an error text).
func TestToolSearchCallAndOutput(t *testing.T) {
	for _, raw := range []string{
		`{"type":"tool_search_call","call_id":"c1","execution":"client","arguments":{"query":"spawn"}}`,
		`{"type":"tool_search_call","call_id":"c1","execution":"client","arguments":"{\"query\":\"spawn\"}"}`,
	} {
		call, ok := toolSearchCall(protocol.OtherItem{Raw: json.RawMessage(raw)})
		if !ok || call.Kind != tool.ToolSearchCall || call.CallID != "c1" || call.Name != "tool_search" || call.Arguments != `{"query":"spawn"}` {
			t.Errorf("%s read as %+v, %v", raw, call, ok)
		}
	}
	if _, ok := toolSearchCall(protocol.OtherItem{Raw: json.RawMessage(`{"type":"tool_search_call","call_id":"c1","execution":"server","arguments":{}}`)}); ok {
		t.Error("a server-executed search was read as a call to run")
	}
	out := toolSearchOutput("c1", `[{"type":"function","name":"f"}]`).(protocol.OtherItem)
	if want := `{"type":"tool_search_output","call_id":"c1","status":"completed","execution":"client","tools":[{"type":"function","name":"f"}]}`; string(out.Raw) != want {
		t.Errorf("output %s, want %s", out.Raw, want)
	}
	out = toolSearchOutput("c1", "failed to parse").(protocol.OtherItem)
	if want := `{"type":"tool_search_output","call_id":"c1","status":"completed","execution":"client","tools":[]}`; string(out.Raw) != want {
		t.Errorf("output %s, want %s", out.Raw, want)
	}
}
