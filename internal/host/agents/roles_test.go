package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/tools/collab"
)

// reviewerConfig is an [agents] table as config.toml gives it: limits and one role.
var reviewerConfig = map[string]any{
	"max_threads": int64(4),
	"reviewer": map[string]any{
		"description": "Reviews code carefully for bugs.", "model": "other-model", "model_provider": "local",
		"model_reasoning_effort": "high", "developer_instructions": "You are a meticulous reviewer.",
	},
}

func newRoleWorld(t *testing.T, table map[string]any) *world {
	t.Helper()
	roles, err := RolesFromConfig(table, t.TempDir())
	w := newDeepWorld(t, 0, 0)
	w.reg.opts.Roles, w.reg.opts.RolesError, w.reg.roles = roles, err, roleList(roles)
	return w
}

func TestRoleSettingsReachTheChild(t *testing.T) {
	w := newRoleWorld(t, reviewerConfig)
	res := w.call(t, "spawn_agent", `{"task_name":"review","message":"review it","agent_type":"reviewer"}`)
	if !res.Success {
		t.Fatalf("spawn: %q", res.Output)
	}
	c := w.started[0]
	if c.Model != "local/other-model" || c.ReasoningEffort != "high" {
		t.Errorf("child runs on %q effort %q, want the role's local/other-model, high", c.Model, c.ReasoningEffort)
	}
	if c.Role != "reviewer" || c.DeveloperInstructions != "You are a meticulous reviewer." {
		t.Errorf("child role %q, developer instructions %q", c.Role, c.DeveloperInstructions)
	}
}

// TestRoleConfigFileAsCodexReadsIt: Codex 0.169 reads a role's settings from its
// config_file (relative to CODEX_HOME); the table's own keys win over the file's.
func TestRoleConfigFileAsCodexReadsIt(t *testing.T) {
	home := t.TempDir()
	file := "model = \"file-model\"\nmodel_reasoning_effort = \"low\"\ndeveloper_instructions = \"From the file.\"\n"
	if err := os.WriteFile(filepath.Join(home, "reviewer.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	roles, err := RolesFromConfig(map[string]any{"reviewer": map[string]any{"config_file": "reviewer.toml", "model_reasoning_effort": "high"}}, home)
	if err != nil {
		t.Fatal(err)
	}
	want := Role{Name: "reviewer", ConfigFile: "reviewer.toml", Model: "file-model", ReasoningEffort: "high", DeveloperInstructions: "From the file."}
	if len(roles) != 1 || roles[0] != want {
		t.Errorf("roles %+v, want %+v", roles, want)
	}
}

func TestRoleConfigFileErrorsNameTheProblem(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "bad.toml"), []byte("sandbox_mode = \"read-only\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"missing.toml": "agents.r.config_file", "bad.toml": `"sandbox_mode" is not a setting gocodex gives a sub-agent`} {
		_, err := RolesFromConfig(map[string]any{"r": map[string]any{"config_file": file}}, home)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", file, err, want)
		}
	}
}

// TestRolesModelWinsOverTheSpawnCall: Codex tells the model a role's model and effort
// "cannot be changed"; the call's own give way.
func TestRolesModelWinsOverTheSpawnCall(t *testing.T) {
	w := newRoleWorld(t, reviewerConfig)
	w.call(t, "spawn_agent", `{"task_name":"review","message":"m","agent_type":"reviewer","model":"gpt-5.5","reasoning_effort":"low"}`)
	if c := w.started[0]; c.Model != "local/other-model" || c.ReasoningEffort != "high" {
		t.Errorf("child runs on %q effort %q, want the role's local/other-model, high", c.Model, c.ReasoningEffort)
	}
}

func TestUnknownRoleIsRefused(t *testing.T) {
	w := newRoleWorld(t, reviewerConfig)
	res := w.call(t, "spawn_agent", `{"task_name":"x","message":"m","agent_type":"nobody"}`)
	if res.Success || !strings.Contains(res.Output, `unknown agent_type "nobody"`) || len(w.started) != 0 {
		t.Errorf("spawn with an unknown role: %q (started %d)", res.Output, len(w.started))
	}
}

func TestBuiltinRoleSpawnsWithTheParentsSettings(t *testing.T) {
	w := newRoleWorld(t, reviewerConfig)
	res := w.call(t, "spawn_agent", `{"task_name":"x","message":"m","agent_type":"explorer"}`)
	if !res.Success || w.started[0].Model != "" {
		t.Errorf("spawn as explorer: %q, model %q", res.Output, w.started[0].Model)
	}
}

func TestMistypedRoleRefusesEverySpawn(t *testing.T) {
	w := newRoleWorld(t, map[string]any{"reviewer": map[string]any{"model": int64(5)}})
	res := w.call(t, "spawn_agent", `{"task_name":"x","message":"m"}`)
	if res.Success || !strings.Contains(res.Output, "agents.reviewer.model must be a string") {
		t.Errorf("spawn under a mistyped role: %q", res.Output)
	}
}

// TestSpawnAgentListsRolesAsCodex compares spawn_agent's agent_type with the one Codex 0.169
// sent with [agents.reviewer] configured (testdata recorded from its request; its inline
// model and effort, which Codex ignores, left out here). The line telling a role's fixed
// model and effort is compared live in e2e's TestSubagentRoleMatchesReference.
func TestSpawnAgentListsRolesAsCodex(t *testing.T) {
	recorded, err := os.ReadFile("../../tools/collab/testdata/agent_type_reviewer_0.169.json")
	if err != nil {
		t.Fatal(err)
	}
	w := newRoleWorld(t, map[string]any{"reviewer": map[string]any{"description": "Reviews code carefully for bugs."}})
	var ns struct {
		Tools []struct {
			Name       string
			Parameters struct {
				Properties map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(w.h.Spec(), &ns); err != nil {
		t.Fatalf("spec: %v", err)
	}
	for _, f := range ns.Tools {
		if f.Name != "spawn_agent" {
			continue
		}
		var got, want any
		_ = json.Unmarshal(f.Parameters.Properties["agent_type"], &got)
		_ = json.Unmarshal(recorded, &want)
		g, _ := json.Marshal(got)
		wnt, _ := json.Marshal(want)
		if string(g) != string(wnt) {
			t.Errorf("agent_type\n got %s\nwant %s", g, wnt)
		}
		return
	}
	t.Fatal("no spawn_agent in the namespace")
}

func TestNoRoleNoAgentType(t *testing.T) {
	if strings.Contains(string(collab.New(New(Options{Start: func(context.Context, Child) (Thread, error) { return nil, nil }})).Spec()), "agent_type") {
		t.Error("agent_type offered with no role configured; Codex offers none")
	}
}
