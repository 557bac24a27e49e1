package toolsearch

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/tool"
)

// TestSpecIsCodexs pins tool_search to the definition Codex 0.169 sent with multi_agent on
// (recorded by e2e's TestRecordCodexSubagentsV1).
func TestSpecIsCodexs(t *testing.T) {
	b, err := os.ReadFile("../../../e2e/testdata/codex_subagents_v1/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []struct {
		Body struct {
			Tools []map[string]any `json:"tools"`
		} `json:"body"`
	}
	if err := json.Unmarshal(b, &reqs); err != nil {
		t.Fatal(err)
	}
	var want any
	for _, tl := range reqs[0].Body.Tools {
		if tl["type"] == "tool_search" {
			want = tl
		}
	}
	var got any
	if err := json.Unmarshal(New().Spec(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool_search differs from Codex's (-codex +ours):\n%s", diff)
	}
}

type fixed struct{ spec string }

func (f fixed) Spec() tool.Spec { return tool.Spec(f.spec) }
func (f fixed) Handle(context.Context, *tool.Env, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

// TestSearchFindsByNameAndDescription: the best match comes first, a namespace is found by
// its functions' names, a query matching nothing finds nothing, and limit bounds the list.
func TestSearchFindsByNameAndDescription(t *testing.T) {
	agentsNS := fixed{`{"type":"namespace","name":"multi_agent_v1","description":"Tools for sub-agents.","tools":[{"type":"function","name":"spawn_agent","description":"Spawn a sub-agent."}]}`}
	weather := fixed{`{"type":"function","name":"get_weather","description":"Weather of a city."}`}
	h := New(agentsNS, weather)
	search := func(args string) []map[string]any {
		t.Helper()
		res, err := h.Handle(context.Background(), nil, tool.Call{Kind: tool.ToolSearchCall, Name: "tool_search", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
			t.Fatalf("output %q is not a list of tools: %v", res.Output, err)
		}
		return out
	}
	if got := search(`{"query":"spawn agent"}`); len(got) != 1 || got[0]["name"] != "multi_agent_v1" {
		t.Errorf("spawn agent found %v", got)
	}
	if got := search(`{"query":"weather city"}`); len(got) != 1 || got[0]["name"] != "get_weather" {
		t.Errorf("weather found %v", got)
	}
	if got := search(`{"query":"quantum teleport"}`); len(got) != 0 {
		t.Errorf("an unrelated query found %v", got)
	}
	if got := search(`{"query":"of a sub agent weather","limit":1}`); len(got) != 1 {
		t.Errorf("limit 1 returned %d tools", len(got))
	}
	res, _ := h.Handle(context.Background(), nil, tool.Call{Kind: tool.ToolSearchCall, Arguments: `{"query":""}`})
	if res.Success {
		t.Errorf("an empty query succeeded: %q", res.Output)
	}
	res, _ = h.Handle(context.Background(), nil, tool.Call{Kind: tool.ToolSearchCall, Arguments: `not json`})
	if res.Success {
		t.Errorf("bad arguments succeeded: %q", res.Output)
	}
}
