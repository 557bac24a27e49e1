package agents

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/tools/collab"
	"github.com/gocodex/gocodex/tool"
)

// TestV1SpawnWaitClose drives the multi_agent v1 tools on the host's agents: spawn_agent
// names the child by its thread id, wait_agent on it returns its final answer as Codex 0.169
// words it, and close_agent reports the status it had. goleak (TestMain) checks that no
// goroutine outlives the registry.
func TestV1SpawnWaitClose(t *testing.T) {
	w := newWorld(t, 0)
	v1 := collab.NewV1(w.reg)
	call := func(name, args string) tool.Result {
		t.Helper()
		res, err := v1.Handle(context.Background(), w.env(), tool.Call{Kind: tool.FunctionCall, CallID: "c-" + name,
			Namespace: collab.V1Namespace, Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	res := call("spawn_agent", `{"message":"do it"}`)
	var spawned struct {
		AgentID string `json:"agent_id"`
	}
	if err := json.Unmarshal([]byte(res.Output), &spawned); err != nil || spawned.AgentID == "" || !res.Success {
		t.Fatalf("spawn output %q", res.Output)
	}
	w.mu.Lock()
	child := w.children[0]
	w.mu.Unlock()
	if spawned.AgentID != child.ID() {
		t.Fatalf("agent_id %q, want the child's thread id %q", spawned.AgentID, child.ID())
	}
	answer(child, "the answer")
	args, _ := json.Marshal(map[string]any{"targets": []string{spawned.AgentID}, "timeout_ms": 30000})
	res = call("wait_agent", string(args))
	want := `{"status":{"` + spawned.AgentID + `":{"completed":"the answer"}},"timed_out":false}`
	if res.Output != want {
		t.Fatalf("wait output\n got %s\nwant %s", res.Output, want)
	}
	res = call("close_agent", `{"target":"`+spawned.AgentID+`"}`)
	if want := `{"previous_status":{"completed":"the answer"}}`; res.Output != want {
		t.Fatalf("close output %s, want %s", res.Output, want)
	}
	if res := call("wait_agent", `{"targets":[]}`); res.Success {
		t.Fatalf("a wait with no targets succeeded: %s", res.Output)
	}
	if res := call("wait_agent", `{"targets":["nobody"]}`); res.Success || !strings.Contains(res.Output, "agent nobody not found") {
		t.Fatalf("a wait on an unknown agent: %s", res.Output)
	}
	if res := call("close_agent", `{"target":"nobody"}`); res.Success {
		t.Fatalf("closing an unknown agent succeeded: %s", res.Output)
	}
}
