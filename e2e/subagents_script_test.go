package e2e

import (
	"encoding/json"
	"strings"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The sub-agent script: one scripted model that answers each request by the agent that sent
// it, told apart by the child's task text (so it works whatever headers a binary sends). The
// root spawns a child with childTask, waits, and reports what the child answered; the child
// runs childCommand and answers childAnswer.
const (
	childTaskName = "worker"
	childTask     = "CHILD-TASK: run the probe command and report its output"
	childCommand  = "echo probe-from-child"
	childAnswer   = "child-result: probe-from-child"
	rootPrompt    = "Spawn a worker and report its answer."
)

// nsCall is a function_call inside a namespace tool (the collaboration tools).
func nsCall(callID, namespace, name, args string) tk.Event {
	return tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": map[string]any{
		"type": "function_call", "id": "fc_" + callID, "call_id": callID, "namespace": namespace, "name": name, "arguments": args, "status": "completed"}})
}

// isChild reports whether a request comes from the child: its task text is in an input item
// that is not the root's spawn call (the root's history holds it only as call arguments).
func isChild(r tk.Request) bool {
	for _, it := range r.Input() {
		if it["type"] == "function_call" {
			continue
		}
		b, _ := json.Marshal(it)
		if strings.Contains(string(b), "CHILD-TASK") {
			return true
		}
	}
	return false
}

// hasOutput reports whether the request carries the output of callID.
func hasOutput(r tk.Request, callID string) bool {
	_, ok := r.ToolOutput(callID)
	return ok
}

// inputHas reports whether any input item (not a call) mentions s.
func inputHas(r tk.Request, s string) bool {
	for _, it := range r.Input() {
		if it["type"] == "function_call" {
			continue
		}
		b, _ := json.Marshal(it)
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}

func usage() tk.Event { return tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}) }

// subagentReply is the routed script.
func subagentReply(r tk.Request) tk.Response { return subagentReplyWith(childCommand)(r) }

// subagentReplyWith is the routed script with the child running command.
func subagentReplyWith(command string) func(tk.Request) tk.Response {
	return subagentReplyArgs(map[string]any{"cmd": command, "yield_time_ms": 30000})
}

// subagentReplyArgs is the routed script with the child's exec_command arguments.
func subagentReplyArgs(childArgs map[string]any) func(tk.Request) tk.Response {
	return func(r tk.Request) tk.Response { return routedReply(r, childArgs, nil) }
}

// routedReply answers r by its agent; spawnArgs are added to the root's spawn_agent call.
func routedReply(r tk.Request, childArgs, spawnArgs map[string]any) tk.Response {
	if isChild(r) {
		if !hasOutput(r, "call_child_exec") {
			args, _ := json.Marshal(childArgs)
			return tk.SSE(tk.Created(), tk.FunctionCall("call_child_exec", "exec_command", string(args)), usage())
		}
		return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_child", childAnswer), usage())
	}
	switch {
	case !hasOutput(r, "call_spawn"):
		spawn := map[string]any{"task_name": childTaskName, "message": childTask}
		for k, v := range spawnArgs {
			spawn[k] = v
		}
		args, _ := json.Marshal(spawn)
		return tk.SSE(tk.Created(), nsCall("call_spawn", "collaboration", "spawn_agent", string(args)), usage())
	case !hasOutput(r, "call_wait"):
		return tk.SSE(tk.Created(), nsCall("call_wait", "collaboration", "wait_agent", `{"timeout_ms":30000}`), usage())
	}
	answer := "root reports: nothing"
	if inputHas(r, childAnswer) {
		answer = "root reports: " + childAnswer
	}
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_root", answer), usage())
}
