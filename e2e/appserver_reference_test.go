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
	name   string
	script func() []tk.Response
	run    func(c *asClient, threadID string)
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
	{name: "user shell command", run: func(c *asClient, id string) {
		c.mustCall("thread/shellCommand", map[string]any{"threadId": id, "command": "echo hi"}, nil)
	}},
}

// ignoredMethods are notifications of Codex features this implementation does not have.
var ignoredMethods = map[string]bool{"remoteControl/status/changed": true, "deprecationNotice": true, "configWarning": true}

func runAppServerScenario(t *testing.T, bin string, script []tk.Response, run func(*asClient, string)) []string {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(0)})
	e.Model.Enqueue(script...)
	saved := binary
	binary = bin
	c, stop := e.startAppServer()
	binary = saved
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
			ours := runAppServerScenario(t, binary, script, sc.run)
			if sc.script != nil {
				script = sc.script()
			}
			theirs := runAppServerScenario(t, ref, script, sc.run)
			if diff := cmp.Diff(theirs, ours); diff != "" {
				t.Errorf("notifications (-codex +ours):\n%s", diff)
			}
			if len(ours) == 0 || !strings.HasPrefix(ours[len(ours)-1], "turn/completed") {
				t.Errorf("no turn/completed: %v", ours)
			}
		})
	}
}
