package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

const roleInstructions = "ROLE-INSTRUCTIONS: review with care."

// TestSubagentRoleReachesTheChild: an [agents.reviewer] role naming a model, another
// configured provider (gocodex's own model_provider), an effort and developer instructions;
// the root spawns with agent_type "reviewer" and the child's requests carry all of them, on
// the other provider, while the root's spawn_agent lists the role.
func TestSubagentRoleReachesTheChild(t *testing.T) {
	e := newEnv(t)
	other := tk.NewServer(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: "\n[model_providers.other]\nname = \"Other\"\nbase_url = \"" +
		other.BaseURL() + "\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n" +
		"\n[agents.reviewer]\ndescription = \"Reviews code carefully.\"\nmodel = \"gpt-6-luna\"\nmodel_provider = \"other\"\n" +
		"model_reasoning_effort = \"high\"\ndeveloper_instructions = \"" + roleInstructions + "\"\n"})
	exec := map[string]any{"cmd": childCommand, "yield_time_ms": 30000}
	spawn := map[string]any{"agent_type": "reviewer", "fork_turns": "none"}
	reply := tk.Replying(func(r tk.Request) tk.Response { return routedReply(r, exec, spawn) })
	e.Model.SetDefault(reply)
	other.SetDefault(reply)
	res := e.run("", "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2", rootPrompt)
	if res.Code != 0 || !strings.Contains(res.Stdout, "root reports: "+childAnswer) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
	}
	roots := e.Model.Requests()
	if len(roots) == 0 {
		t.Fatal("no root request")
	}
	tools, _ := json.Marshal(roots[0].JSON["tools"])
	if !strings.Contains(string(tools), `"agent_type"`) || !strings.Contains(string(tools), `reviewer: {\nReviews code carefully.\n}`) {
		t.Errorf("the root's spawn_agent does not list the reviewer role: %s", tools)
	}
	for _, r := range roots {
		if isChild(r) {
			t.Errorf("a child request reached the root's provider")
		}
	}
	children := 0
	for _, r := range other.Requests() {
		if !isChild(r) {
			t.Errorf("a root request reached the role's provider")
			continue
		}
		children++
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
	if children != 2 {
		t.Errorf("the role's provider got %d child requests, want 2", children)
	}
}
