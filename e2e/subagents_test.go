package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadRecordedSubagents reads Codex 0.169's run of the sub-agent script (testdata).
func loadRecordedSubagents(t *testing.T) subagentRun {
	t.Helper()
	var run subagentRun
	b, err := os.ReadFile(filepath.Join(subagentRecordDir, "exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run.Stdout = string(b)
	b, err = os.ReadFile(filepath.Join(subagentRecordDir, "requests.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run.Requests); err != nil {
		t.Fatal(err)
	}
	var rollouts [][]map[string]any
	b, err = os.ReadFile(filepath.Join(subagentRecordDir, "rollouts.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rollouts); err != nil {
		t.Fatal(err)
	}
	run.Rollouts = map[string][]map[string]any{}
	for i, r := range rollouts {
		run.Rollouts[string(rune('a'+i))] = r
	}
	return run
}

// reference is Codex's run: live when GOCODEX_REFERENCE_CODEX is set, else the recording.
func subagentReference(t *testing.T, extra ...string) subagentRun {
	if bin := os.Getenv("GOCODEX_REFERENCE_CODEX"); bin != "" {
		_, run := runSubagentScript(t, bin, extra...)
		return run
	}
	return loadRecordedSubagents(t)
}

// subagentBinaries are gocodex and, when GOCODEX_REFERENCE_CODEX is set, Codex, by name.
func subagentBinaries() map[string]string {
	bins := map[string]string{"gocodex": binary}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		bins["codex"] = ref
	}
	return bins
}

// toolsOf is a request's tools: each tool's name (a namespace's with its functions) and the
// collaboration namespace whole.
func toolsOf(t *testing.T, r recordedRequest) (names []string, namespace json.RawMessage) {
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, raw := range body.Tools {
		var head struct {
			Name string `json:"name"`
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		names = append(names, head.Type+":"+head.Name)
		if head.Name == "collaboration" {
			namespace = raw
		}
	}
	return names, namespace
}

// unrelatedTools differ between gocodex and Codex whatever the sub-agents do (gocodex's
// update_plan and diagnostics; exec's goal tools, which gocodex offers in the app-server).
var unrelatedTools = map[string]bool{"function:update_plan": true, "function:diagnostics": true,
	"function:get_goal": true, "function:create_goal": true, "function:update_goal": true}

func withoutUnrelatedTools(names []string) []string {
	var out []string
	for _, n := range names {
		if !unrelatedTools[n] {
			out = append(out, n)
		}
	}
	return out
}

// inputShapes are an agent's requests' input items, each as its type (a message's role, a
// spawn output copied into the child as "aborted", an agent_message's author and
// recipient): the history each agent is given, as Codex builds it.
func inputShapes(run subagentRun, agent string) [][]string {
	var out [][]string
	for _, r := range run.Requests {
		if r.Agent != agent {
			continue
		}
		var body struct{ Input []map[string]any }
		_ = json.Unmarshal(r.Body, &body)
		var items []string
		for _, it := range body.Input {
			s, _ := it["type"].(string)
			switch s {
			case "message":
				s += "/" + fmt.Sprint(it["role"])
			case "agent_message":
				s += fmt.Sprintf(" %v->%v", it["author"], it["recipient"])
			case "function_call_output":
				if it["output"] == "aborted" {
					s += "=aborted"
				}
			case "function_call":
				s += " " + fmt.Sprint(it["name"])
			}
			items = append(items, s)
		}
		out = append(out, items)
	}
	return out
}

func firstRequest(run subagentRun, agent string) (recordedRequest, bool) {
	for _, r := range run.Requests {
		if r.Agent == agent {
			return r, true
		}
	}
	return recordedRequest{}, false
}

// sessionMetas are the rollouts' first lines' payloads: the root's and the child's.
func sessionMetas(t *testing.T, run subagentRun) (root, child map[string]any) {
	for _, lines := range run.Rollouts {
		if len(lines) == 0 {
			continue
		}
		meta, _ := lines[0]["payload"].(map[string]any)
		if meta["parent_thread_id"] != nil {
			child = meta
		} else {
			root = meta
		}
	}
	if root == nil || child == nil {
		t.Fatalf("want a root and a child rollout, got %d rollouts", len(run.Rollouts))
	}
	return root, child
}

// TestSubagentsMatchReference: the root spawns a child, the child runs a command and
// answers, the root waits and reports the child's answer. Compared with Codex 0.169 on the
// same script: the tools each agent is offered (the collaboration namespace byte for byte),
// the agents' headers, the exec --json items, and how the child's rollout links to the root.
func TestSubagentsMatchReference(t *testing.T) {
	_, ours := runSubagentScript(t, binary)
	theirs := subagentReference(t)

	if !strings.Contains(ours.Stdout, "root reports: "+childAnswer) {
		t.Fatalf("the root did not report the child's answer:\n%s", ours.Stdout)
	}
	for _, agent := range []string{"root", "child"} {
		o, ok1 := firstRequest(ours, agent)
		c, ok2 := firstRequest(theirs, agent)
		if !ok1 || !ok2 {
			t.Fatalf("%s: no request (ours %v, reference %v)", agent, ok1, ok2)
		}
		on, ons := toolsOf(t, o)
		cn, cns := toolsOf(t, c)
		on, cn = withoutUnrelatedTools(on), withoutUnrelatedTools(cn)
		if diff := cmp.Diff(cn, on); diff != "" {
			t.Errorf("%s's tools differ (-reference +ours):\n%s", agent, diff)
		}
		if string(ons) != string(cns) {
			var a, b any
			_ = json.Unmarshal(ons, &a)
			_ = json.Unmarshal(cns, &b)
			if diff := cmp.Diff(b, a); diff != "" {
				t.Errorf("%s's collaboration namespace differs (-reference +ours):\n%s", agent, diff)
			}
		}
		for _, h := range []string{"x-openai-subagent", "x-codex-parent-thread-id"} {
			if (o.Header[h] == "") != (c.Header[h] == "") || (h == "x-openai-subagent" && o.Header[h] != c.Header[h]) {
				t.Errorf("%s's %s: ours %q, reference %q", agent, h, o.Header[h], c.Header[h])
			}
		}
	}
	for _, agent := range []string{"root", "child"} {
		if diff := cmp.Diff(inputShapes(theirs, agent), inputShapes(ours, agent)); diff != "" {
			t.Errorf("what the %s's requests carry differs (-reference +ours):\n%s", agent, diff)
		}
	}
	if diff := cmp.Diff(shapes(t, theirs.Stdout), shapes(t, ours.Stdout)); diff != "" {
		t.Errorf("exec --json differs (-reference +ours):\n%s\nours:\n%s", diff, ours.Stdout)
	}

	root, child := sessionMetas(t, ours)
	rootID, _ := root["id"].(string)
	for _, k := range []string{"parent_thread_id", "forked_from_id", "session_id"} {
		if child[k] != rootID {
			t.Errorf("child session_meta %s = %v, want the root %s", k, child[k], rootID)
		}
	}
	_, refChild := sessionMetas(t, theirs)
	for _, k := range []string{"thread_source", "multi_agent_version", "agent_path"} {
		if child[k] != refChild[k] {
			t.Errorf("child session_meta %s = %v, reference %v", k, child[k], refChild[k])
		}
	}
	spawn := func(m map[string]any) map[string]any {
		src, _ := m["source"].(map[string]any)
		sa, _ := src["subagent"].(map[string]any)
		ts, _ := sa["thread_spawn"].(map[string]any)
		return ts
	}
	o, c := spawn(child), spawn(refChild)
	if o == nil || o["parent_thread_id"] != rootID || o["depth"] != c["depth"] || o["agent_path"] != c["agent_path"] {
		t.Errorf("child source.subagent.thread_spawn = %v, reference %v", o, c)
	}
}
