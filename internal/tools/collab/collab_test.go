package collab

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecIsCodexs pins the namespace, the model overrides of spawn_agent's description
// included, to the one Codex 0.169 sent on the sub-agent script (recorded by
// e2e's TestRecordCodexSubagents).
func TestSpecIsCodexs(t *testing.T) {
	b, err := os.ReadFile("../../../e2e/testdata/codex_subagents/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []struct {
		Body struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"body"`
	}
	if err := json.Unmarshal(b, &reqs); err != nil {
		t.Fatal(err)
	}
	var want any
	for _, raw := range reqs[0].Body.Tools {
		var head struct{ Name string }
		_ = json.Unmarshal(raw, &head)
		if head.Name == Namespace {
			_ = json.Unmarshal(raw, &want)
		}
	}
	if want == nil {
		t.Fatal("the recording has no collaboration namespace")
	}
	var got any
	if err := json.Unmarshal(Spec(), &got); err != nil {
		t.Fatalf("spec is not JSON: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("collaboration namespace differs from Codex's (-codex +ours):\n%s", diff)
	}
}
