package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// roleConfig is an [agents.reviewer] role on the root's own provider (so Codex, which has no
// per-role provider, runs it the same way).
const roleFileConfig = "model = \"gpt-6-luna\"\nmodel_reasoning_effort = \"high\"\ndeveloper_instructions = \"" + roleInstructions + "\"\n"

// runRoleScript runs bin on the sub-agent script, the root spawning a "reviewer".
func runRoleScript(t *testing.T, bin string) (rootFirst, childFirst tk.Request, childMeta map[string]any) {
	e := newEnv(t)
	roleFile := filepath.Join(e.CodexHome, "reviewer.toml")
	if err := os.WriteFile(roleFile, []byte(roleFileConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: "\n[agents.reviewer]\ndescription = \"Reviews code carefully.\"\nconfig_file = \"reviewer.toml\"\n"})
	spawn := map[string]any{"agent_type": "reviewer", "fork_turns": "none"}
	exec := map[string]any{"cmd": childCommand, "yield_time_ms": 30000}
	e.Model.SetDefault(tk.Replying(func(r tk.Request) tk.Response { return routedReply(r, exec, spawn) }))
	saved := binary
	binary = bin
	defer func() { binary = saved }()
	res := e.run("", "exec", "--json", "--skip-git-repo-check", "--enable", "multi_agent_v2", rootPrompt)
	if res.Code != 0 || !strings.Contains(res.Stdout, "root reports: "+childAnswer) {
		t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", bin, res.Code, res.Stdout, res.Stderr)
	}
	found := false
	rootFirst = e.Model.Requests()[0]
	for _, r := range e.Model.Requests() {
		if isChild(r) && !found {
			childFirst, found = r, true
		}
	}
	if !found {
		t.Fatalf("%s: no child request", bin)
	}
	run := collectSubagentRun(t, e, res.Stdout)
	_, childMeta = sessionMetas(t, run)
	return rootFirst, childFirst, childMeta
}

// hasDeveloperText reports whether a request's developer messages hold text as one part.
func hasDeveloperText(t *testing.T, r tk.Request, text string) bool {
	for _, msg := range developerTexts(t, r) {
		if slices.Contains(msg, text) {
			return true
		}
	}
	return false
}

// TestSubagentRoleMatchesReference runs gocodex and Codex 0.169 (GOCODEX_REFERENCE_CODEX;
// without it, the observed values and the namespace recorded with GOCODEX_RECORD=1) on
// the same script, the role's settings in its config_file as Codex reads them, and compares
// what the role gives the child: its first request's model and effort, its developer
// instructions as a part of a developer message, and agent_role in its session_meta.
func TestSubagentRoleMatchesReference(t *testing.T) {
	bins := subagentBinaries()
	if len(bins) == 1 {
		t.Log("GOCODEX_REFERENCE_CODEX not set: gocodex alone against Codex 0.169's observed values")
	}
	namespaces := map[string]any{}
	for name, bin := range bins {
		root, req, meta := runRoleScript(t, bin)
		for _, tool := range root.JSON["tools"].([]any) {
			if m, _ := tool.(map[string]any); m["name"] == "collaboration" {
				namespaces[name] = m
			}
		}
		if req.JSON["model"] != "gpt-6-luna" {
			t.Errorf("%s: child's model %v, want the role's gpt-6-luna", name, req.JSON["model"])
		}
		if reasoning, _ := req.JSON["reasoning"].(map[string]any); reasoning["effort"] != "high" {
			t.Errorf("%s: child's reasoning %v, want the role's effort high", name, req.JSON["reasoning"])
		}
		if !hasDeveloperText(t, req, roleInstructions) {
			t.Errorf("%s: the role's developer_instructions are not a developer message part", name)
		}
		spawn, _ := meta["source"].(map[string]any)["subagent"].(map[string]any)["thread_spawn"].(map[string]any)
		if meta["agent_role"] != "reviewer" || spawn["agent_role"] != "reviewer" {
			t.Errorf("%s: child session_meta agent_role %v, thread_spawn.agent_role %v, want reviewer", name, meta["agent_role"], spawn["agent_role"])
		}
	}
	recorded := filepath.Join(subagentRecordDir, "role_namespace.json")
	if theirs, ok := namespaces["codex"]; ok && os.Getenv("GOCODEX_RECORD") != "" {
		b, _ := json.MarshalIndent(theirs, "", " ")
		if err := os.WriteFile(recorded, append(b, '\n'), 0o644); err != nil {
			t.Error(err)
		}
	}
	if _, ok := namespaces["codex"]; !ok { // no reference binary: its recording
		b, err := os.ReadFile(recorded)
		if err != nil {
			t.Fatal(err)
		}
		var theirs any
		if err := json.Unmarshal(b, &theirs); err != nil {
			t.Fatal(err)
		}
		namespaces["codex"] = theirs
	}
	if theirs, ok := namespaces["codex"]; ok {
		if diff := cmp.Diff(theirs, namespaces["gocodex"]); diff != "" {
			t.Errorf("the collaboration namespace with a role differs (-codex +gocodex):\n%s", diff)
		}
	}
}
