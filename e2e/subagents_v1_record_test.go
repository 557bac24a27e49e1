package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// subagentV1RecordDir holds what Codex 0.169 did on the v1 sub-agent script (only
// multi_agent on, its default): recorded by TestRecordCodexSubagentsV1 with GOCODEX_RECORD=1.
const subagentV1RecordDir = "testdata/codex_subagents_v1"

// toolSearchCall is the model calling the client-executed tool_search tool.
func toolSearchCall(callID, query string) tk.Event {
	return tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": map[string]any{
		"type": "tool_search_call", "id": "tsc_" + callID, "call_id": callID, "execution": "client", "status": "completed",
		"arguments": map[string]any{"query": query}}})
}

// hasSearchOutput reports whether the request carries the tool_search_output of callID.
func hasSearchOutput(r tk.Request, callID string) bool {
	for _, it := range r.Input() {
		if it["type"] == "tool_search_output" && it["call_id"] == callID {
			return true
		}
	}
	return false
}

// v1Reply is the v1 script: the root searches for the sub-agent tools, spawns a child with
// spawn_agent, waits for it with wait, closes it with close_agent and reports its answer.
func v1Reply(r tk.Request) tk.Response {
	if isChild(r) {
		if !hasOutput(r, "call_child_exec") {
			args, _ := json.Marshal(map[string]any{"cmd": childCommand, "yield_time_ms": 30000})
			return tk.SSE(tk.Created(), tk.FunctionCall("call_child_exec", "exec_command", string(args)), usage())
		}
		return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_child", childAnswer), usage())
	}
	switch {
	case !hasSearchOutput(r, "call_search"):
		return tk.SSE(tk.Created(), toolSearchCall("call_search", "spawn agent"), usage())
	case !hasOutput(r, "call_spawn"):
		args, _ := json.Marshal(map[string]any{"message": childTask})
		return tk.SSE(tk.Created(), nsCall("call_spawn", "multi_agent_v1", "spawn_agent", string(args)), usage())
	case !hasOutput(r, "call_wait"):
		out, _ := r.ToolOutput("call_spawn")
		var spawned struct {
			AgentID string `json:"agent_id"`
		}
		_ = json.Unmarshal([]byte(outputText(out)), &spawned)
		args, _ := json.Marshal(map[string]any{"targets": []string{spawned.AgentID}, "timeout_ms": 30000})
		return tk.SSE(tk.Created(), nsCall("call_wait", "multi_agent_v1", "wait_agent", string(args)), usage())
	case !hasOutput(r, "call_close"):
		out, _ := r.ToolOutput("call_spawn")
		var spawned struct {
			AgentID string `json:"agent_id"`
		}
		_ = json.Unmarshal([]byte(outputText(out)), &spawned)
		args, _ := json.Marshal(map[string]any{"target": spawned.AgentID})
		return tk.SSE(tk.Created(), nsCall("call_close", "multi_agent_v1", "close_agent", string(args)), usage())
	}
	answer := "root reports: nothing"
	if inputHas(r, childAnswer) {
		answer = "root reports: " + childAnswer
	}
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_root", answer), usage())
}

// outputText is a tool output as text (a string output as is).
func outputText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// runSubagentV1Script runs bin's exec --json on the v1 script with the default features.
func runSubagentV1Script(t *testing.T, bin string) subagentRun {
	_, run := runSubagentV1ScriptEnv(t, bin)
	return run
}

// runSubagentV1ScriptEnv is runSubagentV1Script, with the environment it ran in.
func runSubagentV1ScriptEnv(t *testing.T, bin string) (*env, subagentRun) {
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(v1Reply))
	res := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", rootPrompt)
	if res.Code != 0 {
		t.Fatalf("%s exec: exit %d\nstdout: %s\nstderr: %s", bin, res.Code, res.Stdout, res.Stderr)
	}
	return e, collectSubagentRun(t, e, res.Stdout)
}

// TestRecordCodexSubagentsV1 records Codex 0.169 on the v1 script into testdata.
func TestRecordCodexSubagentsV1(t *testing.T) {
	if os.Getenv("GOCODEX_RECORD") == "" {
		t.Skip("GOCODEX_RECORD is not set")
	}
	run := runSubagentV1Script(t, referenceBinary(t))
	if err := os.MkdirAll(subagentV1RecordDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(run.Requests, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subagentV1RecordDir, "requests.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subagentV1RecordDir, "exec.jsonl"), []byte(run.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
}
