package collab

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestV1SpecIsCodexs pins the multi_agent_v1 namespace, the model overrides of spawn_agent's
// description included, to the one Codex 0.169's tool_search returned on the v1 script
// (recorded by e2e's TestRecordCodexSubagentsV1).
func TestV1SpecIsCodexs(t *testing.T) {
	b, err := os.ReadFile("../../../e2e/testdata/codex_subagents_v1/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []struct {
		Body struct {
			Input []struct {
				Type  string `json:"type"`
				Tools []any  `json:"tools"`
			} `json:"input"`
		} `json:"body"`
	}
	if err := json.Unmarshal(b, &reqs); err != nil {
		t.Fatal(err)
	}
	var want any
	for _, r := range reqs {
		for _, it := range r.Body.Input {
			if it.Type == "tool_search_output" && len(it.Tools) == 1 && want == nil {
				want = it.Tools[0]
			}
		}
	}
	if want == nil {
		t.Fatal("the recording has no tool_search_output with the namespace")
	}
	var got any
	if err := json.Unmarshal(V1Spec(), &got); err != nil {
		t.Fatalf("spec is not JSON: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("multi_agent_v1 namespace differs from Codex's (-codex +ours):\n%s", diff)
	}
}
