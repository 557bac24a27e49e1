package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

const roleInstructions = "ROLE-INSTRUCTIONS: review with care."

// TestSubagentRoleReachesTheChild: an [agents.reviewer] role naming a model, another
// configured provider (gocodex's own model_provider), an effort and developer instructions;
// the root spawns with agent_type "reviewer" and the child's requests carry all of them, on
// the other provider, while the root's spawn_agent lists the role.
func TestSubagentRoleReachesTheChild(t *testing.T) {
	e, other := runWithOtherProvider(t, "\n[agents.reviewer]\ndescription = \"Reviews code carefully.\"\nmodel = \"gpt-6-luna\"\nmodel_provider = \"other\"\n"+
		"model_reasoning_effort = \"high\"\ndeveloper_instructions = \""+roleInstructions+"\"\n",
		map[string]any{"agent_type": "reviewer", "fork_turns": "none"})
	roots := e.Model.Requests()
	if len(roots) == 0 {
		t.Fatal("no root request")
	}
	tools, _ := json.Marshal(roots[0].JSON["tools"])
	if !strings.Contains(string(tools), `"agent_type"`) || !strings.Contains(string(tools), "reviewer: {\\nReviews code carefully.\\n- This role's model is set to `gpt-6-luna` and its reasoning effort is set to `high`. These settings cannot be changed.\\n}") {
		t.Errorf("the root's spawn_agent does not list the reviewer role: %s", tools)
	}
	for _, r := range childRequestsOn(t, e.Model, other) {
		if r.JSON["model"] != "gpt-6-luna" {
			t.Errorf("the child asked for model %v, want the role's gpt-6-luna", r.JSON["model"])
		}
		if reasoning, _ := r.JSON["reasoning"].(map[string]any); reasoning["effort"] != "high" {
			t.Errorf("the child's reasoning %v, want the role's effort high", r.JSON["reasoning"])
		}
		if !hasDeveloperText(t, r, roleInstructions) {
			t.Errorf("the child's input lacks the role's developer instructions")
		}
	}
}
