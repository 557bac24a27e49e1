package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// appServerScenarios run against our binary and Codex 0.169 with the same script; the
// notification sequences must match (methods, item types and statuses).
var appServerScenarios = []struct {
	name     string
	approval string // with the read-only sandbox; default "never" with full access
	// usageGap names an engine difference in token_count events (not the app-server's).
	usageGap string
	script   func() []tk.Response
	run      func(c *asClient, threadID string)
}{
	{name: "streamed message", script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "Hel", "lo"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "hi")
	}},
	{name: "failed turn", script: func() []tk.Response {
		return []tk.Response{tk.Status(500), tk.Status(500), tk.Status(500)}
	}, run: func(c *asClient, id string) {
		c.turn(id, "fail")
	}},
	{name: "escalated command accepted", approval: "on-request", script: func() []tk.Response {
		return []tk.Response{tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"touch marker","sandbox_permissions":"require_escalated","justification":"need it"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
			answer("finished")}
	}, run: func(c *asClient, id string) {
		c.answer = func(rpcMsg) any { return map[string]any{"decision": "accept"} }
		c.turn(id, "touch")
	}},
	{name: "patch declined", approval: "on-request", script: func() []tk.Response {
		return []tk.Response{patchCall("call_2", "a.txt"), answer("patched")}
	}, run: func(c *asClient, id string) {
		c.answer = func(rpcMsg) any { return map[string]any{"decision": "decline"} }
		c.turn(id, "patch")
	}},
	{name: "interrupted", usageGap: "Codex reports usage when a turn is interrupted; the engine does not", script: func() []tk.Response {
		return []tk.Response{tk.Stall(3, tk.Created(), tk.AssistantMessageStream("msg_1", "thinking"), tk.Completed(tk.Usage{}))}
	}, run: func(c *asClient, id string) {
		turn := c.turn(id, "slow")
		c.until("item/agentMessage/delta")
		c.mustCall("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	}},
	{name: "web search", script: func() []tk.Response {
		started := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "in_progress"}
		done := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "completed",
			"action": map[string]any{"type": "search", "query": "golang generics tutorial"}}
		return []tk.Response{tk.SSE(tk.Created(),
			tk.Raw("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started}),
			tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}),
			tk.AssistantMessageStream("msg_1", "Found it."), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "search")
	}},
	{name: "cut stream", usageGap: "Codex reports usage for a response cut short; the engine does not", script: func() []tk.Response {
		return []tk.Response{tk.Cut(2, tk.Created(), tk.AssistantMessageStream("msg_1", "partial"), tk.Completed(tk.Usage{}))}
	}, run: func(c *asClient, id string) {
		c.turn(id, "cut")
	}},
	{name: "patch applied", script: func() []tk.Response {
		return []tk.Response{patchCall("call_3", "b.txt"), answer("patched")}
	}, run: func(c *asClient, id string) {
		c.turn(id, "patch")
	}},
	{name: "user shell command", run: func(c *asClient, id string) {
		c.mustCall("thread/shellCommand", map[string]any{"threadId": id, "command": "echo hi"}, nil)
	}},
}

// ignoredMethods are notifications of Codex features this implementation does not have.
var ignoredMethods = map[string]bool{"remoteControl/status/changed": true, "deprecationNotice": true, "configWarning": true}

func runAppServerScenario(t *testing.T, bin, approval string, script []tk.Response, run func(*asClient, string)) []string {
	e := newEnv(t)
	co := tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(0)}
	if approval != "" {
		co.ApprovalPolicy, co.SandboxMode = approval, "read-only"
	}
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), co)
	e.Model.Enqueue(script...)
	c, stop := e.startAppServerOf(bin)
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	run(c, id)
	var seq []string
	for _, m := range c.until("turn/completed") {
		if ignoredMethods[m.Method] {
			continue
		}
		s := m.Method
		p := params(m)
		if it, ok := p["item"].(map[string]any); ok {
			s += ":" + it["type"].(string)
			if st, ok := it["status"].(string); ok {
				s += ":" + st
			}
		}
		if st, ok := p["status"].(map[string]any); ok {
			s += ":" + st["type"].(string)
		}
		if tr, ok := p["turn"].(map[string]any); ok {
			s += ":" + tr["status"].(string)
		}
		seq = append(seq, s)
	}
	return seq
}

func TestAppServerMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	for _, sc := range appServerScenarios {
		t.Run(sc.name, func(t *testing.T) {
			var script []tk.Response
			if sc.script != nil {
				script = sc.script()
			}
			ours := runAppServerScenario(t, binary, sc.approval, script, sc.run)
			if sc.script != nil {
				script = sc.script()
			}
			theirs := runAppServerScenario(t, ref, sc.approval, script, sc.run)
			// The engine reports a response's usage before running its tools, Codex after:
			// usage notifications are compared by count, not place.
			ours, ourUsage := splitUsage(ours)
			theirs, theirUsage := splitUsage(theirs)
			if ourUsage != theirUsage && sc.usageGap == "" {
				t.Errorf("%d usage notifications, Codex %d", ourUsage, theirUsage)
			}
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("notifications (-codex +ours):\n%s", diff)
			}
			if len(ours) == 0 || !strings.HasPrefix(ours[len(ours)-1], "turn/completed") {
				t.Errorf("no turn/completed: %v", ours)
			}
		})
	}
}

func splitUsage(seq []string) ([]string, int) {
	var out []string
	n := 0
	for _, s := range seq {
		if s == "thread/tokenUsage/updated" || s == "account/rateLimits/updated" {
			n++
			continue
		}
		out = append(out, s)
	}
	return out, n
}
