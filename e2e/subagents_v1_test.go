package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSubagentsV1ThroughToolSearch runs gocodex on the v1 script with the default features
// (multi_agent on): the root finds spawn_agent with tool_search, spawns a child that runs a
// command, waits for it, closes it and reports its answer. tool_search's definition and the
// tools it returns are compared with Codex 0.169's recording.
func TestSubagentsV1ThroughToolSearch(t *testing.T) {
	e, run := runSubagentV1ScriptEnv(t, binary)
	if !strings.Contains(run.Stdout, "root reports: "+childAnswer) {
		t.Fatalf("the root did not report the child's answer:\n%s", run.Stdout)
	}
	b, err := os.ReadFile(filepath.Join(subagentV1RecordDir, "requests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var codex []recordedRequest
	if err := json.Unmarshal(b, &codex); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(toolOf(t, codex[0], "tool_search"), toolOf(t, run.Requests[0], "tool_search")); diff != "" {
		t.Errorf("tool_search differs from Codex's (-codex +gocodex):\n%s", diff)
	}
	if diff := cmp.Diff(searchOutputTools(t, codex), searchOutputTools(t, run.Requests)); diff != "" {
		t.Errorf("the tools tool_search found differ from Codex's (-codex +gocodex):\n%s", diff)
	}
	exec, err := os.ReadFile(filepath.Join(subagentV1RecordDir, "exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(collabItems(t, string(exec)), collabItems(t, run.Stdout)); diff != "" {
		t.Errorf("exec --json items differ from Codex's (-codex +gocodex):\n%s", diff)
	}
	// After the wait, the root's next request holds the wait's output then the notification,
	// as Codex's does.
	if diff := cmp.Diff(afterWait(t, codex), afterWait(t, run.Requests)); diff != "" {
		t.Errorf("the items after the wait differ from Codex's (-codex +gocodex):\n%s", diff)
	}
	// spawn_agent answers the child's id and nickname, as Codex's does.
	if got, want := outputKeys(t, run.Requests, "call_spawn"), outputKeys(t, codex, "call_spawn"); !cmp.Equal(got, want) {
		t.Errorf("spawn_agent's output has %v, Codex's %v", got, want)
	}
	// The child's first request opens with its task as a plain user message, no team
	// instructions, as Codex's v1 child does.
	if diff := cmp.Diff(childOpening(t, codex), childOpening(t, run.Requests)); diff != "" {
		t.Errorf("the child's opening differs from Codex's (-codex +gocodex):\n%s", diff)
	}
	// Resumed, the root's history still offers the tools found (the tool_search_output item).
	before := len(e.Model.Requests())
	rootID, _ := jsonl(t, run.Stdout)[0]["thread_id"].(string)
	if res := e.run("", "exec", "--json", "--skip-git-repo-check", "resume", rootID, "and now?"); res.Code != 0 {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
	}
	resumed := e.Model.Requests()[before:]
	if len(resumed) == 0 || !hasSearchOutput(resumed[0], "call_search") {
		t.Errorf("the resumed root's request lacks the tool_search_output")
	}
	for _, r := range run.Requests {
		if r.Agent == "child" && toolOf(t, r, "tool_search") != nil {
			t.Errorf("the child is offered tool_search")
		}
	}
}

// toolOf is the request's tool of the given type or name, decoded; nil when absent.
func toolOf(t *testing.T, r recordedRequest, key string) any {
	t.Helper()
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, tl := range body.Tools {
		if tl["name"] == key || (tl["name"] == nil && tl["type"] == key) {
			return tl
		}
	}
	return nil
}

// searchOutputTools is the tools of the first tool_search_output a request of the run carries.
func searchOutputTools(t *testing.T, reqs []recordedRequest) any {
	t.Helper()
	for _, r := range reqs {
		input := inputOf(t, r)
		for _, it := range input {
			if it["type"] == "tool_search_output" {
				return it["tools"]
			}
		}
	}
	t.Fatal("no request carries a tool_search_output")
	return nil
}

// collabItems is what exec --json printed, items only, with thread ids left out: event type,
// item type, and for collab calls the tool, status, prompt, receivers' count and the agents'
// states.
func collabItems(t *testing.T, stdout string) []string {
	t.Helper()
	var out []string
	for _, ev := range jsonl(t, stdout) {
		it, ok := ev["item"].(map[string]any)
		if !ok {
			continue
		}
		line := ev["type"].(string) + " " + it["type"].(string)
		if it["type"] == "collab_tool_call" {
			var states []string
			for _, st := range it["agents_states"].(map[string]any) {
				b, _ := json.Marshal(st)
				states = append(states, string(b))
			}
			b, _ := json.Marshal([]any{it["tool"], it["status"], it["prompt"], len(it["receiver_thread_ids"].([]any)), states})
			line += " " + string(b)
		}
		out = append(out, line)
	}
	return out
}

// afterWait is the types (and for messages the role and text, thread ids left out) of the
// items from the wait's output to the end of the first root request that has it.
// childOpening lists the input items of the child's first request after its environment
// context (type, role and text of each).
func childOpening(t *testing.T, reqs []recordedRequest) []string {
	t.Helper()
	for _, r := range reqs {
		if r.Agent != "child" {
			continue
		}
		input := inputOf(t, r)
		start := 0
		for i, it := range input {
			if strings.HasPrefix(firstText(it), "<environment_context>") {
				start = i + 1
			}
		}
		var out []string
		for _, it := range input[start:] {
			line, _ := it["type"].(string)
			if role, ok := it["role"].(string); ok {
				line += " " + role
			}
			if text := firstText(it); text != "" {
				line += " " + text
			}
			out = append(out, line)
		}
		return out
	}
	t.Fatal("no request of the child")
	return nil
}

// outputKeys are the keys of a call's JSON output with a non-empty value, sorted.
func outputKeys(t *testing.T, reqs []recordedRequest, callID string) []string {
	t.Helper()
	for _, r := range reqs {
		input := inputOf(t, r)
		for _, it := range input {
			if it["type"] != "function_call_output" || it["call_id"] != callID {
				continue
			}
			var out map[string]any
			if err := json.Unmarshal([]byte(outputText(it["output"])), &out); err != nil {
				t.Fatalf("%s's output: %v", callID, err)
			}
			var keys []string
			for k, v := range out {
				if v != "" && v != nil {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			return keys
		}
	}
	t.Fatalf("no output of %s", callID)
	return nil
}

// firstText is the text of an input item's first content part, "" when it has none.
func firstText(it map[string]any) string {
	if c, ok := it["content"].([]any); ok && len(c) > 0 {
		if part, ok := c[0].(map[string]any); ok {
			text, _ := part["text"].(string)
			return text
		}
	}
	return ""
}

func afterWait(t *testing.T, reqs []recordedRequest) []string {
	t.Helper()
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	for _, r := range reqs {
		input := inputOf(t, r)
		for i, it := range input {
			if it["type"] != "function_call_output" || it["call_id"] != "call_wait" {
				continue
			}
			var out []string
			for _, rest := range input[i:] {
				line := rest["type"].(string)
				switch rest["type"] {
				case "message":
					b, _ := json.Marshal(rest["content"])
					line += " " + rest["role"].(string) + " " + ids.ReplaceAllString(string(b), "ID")
				case "function_call_output":
					line += " " + ids.ReplaceAllString(outputText(rest["output"]), "ID")
				}
				out = append(out, line)
			}
			return out
		}
	}
	t.Fatal("no request carries the wait's output")
	return nil
}

// inputOf is a recorded request's input items, decoded.
func inputOf(t *testing.T, r recordedRequest) []map[string]any {
	t.Helper()
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Input
}
