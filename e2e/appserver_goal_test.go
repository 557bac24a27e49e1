package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// An active thread goal is pursued as Codex 0.169 pursues it: after thread/goal/set on an
// idle thread a goal turn starts by itself, the model's goal tools work (their calls show no
// items), the goal's usage is told as it grows, and no turn follows the one in which the
// model completes the goal. want was recorded from Codex 0.169 on the same script (usage
// notifications compared by count: the engine reports usage at another place).
func TestAppServerGoalPursuitLikeCodex(t *testing.T) {
	want := []string{"thread/goal/updated", "thread/status/changed", "turn/started", "thread/goal/updated",
		"thread/goal/updated", "thread/goal/updated", "item/started", "item/agentMessage/delta", "item/completed",
		"thread/status/changed", "turn/completed", "goal complete"}
	ours, oursUsage, oursReqs := goalPursuit(t, binary)
	if diff := cmp.Diff(want, ours); diff != "" {
		t.Errorf("(-codex 0.169 +ours):\n%s", diff)
	}
	if oursReqs != 4 {
		t.Errorf("%d model requests, want 4 (a first turn, then the goal turn's three)", oursReqs)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		theirs, theirUsage, theirReqs := goalPursuit(t, ref)
		// Codex itself sometimes tells the completing response's count before the
		// completion and sometimes not: runs of goal updates are compared as one.
		if diff := cmp.Diff(collapseRuns(theirs, "thread/goal/updated"), collapseRuns(ours, "thread/goal/updated")); diff != "" {
			t.Errorf("(-live codex +ours):\n%s", diff)
		}
		if theirUsage != oursUsage || theirReqs != oursReqs {
			t.Errorf("usage notifications %d, requests %d; Codex %d, %d", oursUsage, oursReqs, theirUsage, theirReqs)
		}
	}
}

// goalPursuit runs a turn, sets an active goal and returns the notifications until the goal
// turn completes (usage ones counted apart) and the number of model requests.
func goalPursuit(t *testing.T, bin string) ([]string, int, int) {
	e := appServerEnv(t, "never")
	e.Model.Enqueue(answer("one"),
		tk.SSE(tk.Created(), tk.FunctionCall("call_g1", "get_goal", `{}`), tk.Completed(tk.Usage{Input: 10, Output: 1, Total: 11})),
		tk.SSE(tk.Created(), tk.FunctionCall("call_g2", "update_goal", `{"status":"complete"}`), tk.Completed(tk.Usage{Input: 10, Output: 1, Total: 11})),
		answer("done"))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "hello")
	c.until("turn/completed")
	c.mustCall("thread/goal/set", map[string]any{"threadId": id, "objective": "ship it", "tokenBudget": 100000}, nil)
	var seq []string
	usage := 0
	for _, m := range c.until("turn/completed") {
		switch {
		case ignoredMethods[m.Method]:
		case m.Method == "thread/tokenUsage/updated" || m.Method == "account/rateLimits/updated":
			usage++
		default:
			seq = append(seq, m.Method)
		}
	}
	// Nothing more: the goal is complete.
	for _, m := range c.settle(500e6) {
		if !ignoredMethods[m.Method] && !strings.HasPrefix(m.Method, "thread/tokenUsage") {
			seq = append(seq, "after: "+m.Method)
		}
	}
	var goal struct {
		Goal struct {
			Status     string `json:"status"`
			TokensUsed int64  `json:"tokensUsed"`
		} `json:"goal"`
	}
	c.mustCall("thread/goal/get", map[string]any{"threadId": id}, &goal)
	seq = append(seq, "goal "+goal.Goal.Status)
	return seq, usage, len(e.Model.Requests())
}

// With [features] goals = false the goal methods answer Codex 0.169's error and the model
// gets no goal tools.
func TestAppServerGoalsDisabledLikeCodex(t *testing.T) {
	want := []string{"-32600 goals feature is disabled", "-32600 goals feature is disabled", "-32600 goals feature is disabled", "goal tools: none"}
	if diff := cmp.Diff(want, goalsDisabled(t, binary)); diff != "" {
		t.Errorf("(-codex 0.169 +ours):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(goalsDisabled(t, ref), goalsDisabled(t, binary)); diff != "" {
			t.Errorf("(-live codex +ours):\n%s", diff)
		}
	}
}

func goalsDisabled(t *testing.T, bin string) []string {
	e := newEnv(t)
	path := tk.WriteConfig(t, e.CodexHome, e.Model.URL())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("goals = false\n") // the file ends in its [features] table
	f.Close()
	e.Model.Enqueue(answer("one"))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "hello")
	c.until("turn/completed")
	var out []string
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"thread/goal/get", map[string]any{"threadId": id}},
		{"thread/goal/set", map[string]any{"threadId": id, "objective": "x"}},
		{"thread/goal/clear", map[string]any{"threadId": id}},
	} {
		if _, er := c.call(call.method, call.params); er != nil {
			out = append(out, errorClass(er.Error.Code, er.Error.Message))
		} else {
			out = append(out, call.method+" succeeded")
		}
	}
	tools := "none"
	if body := string(e.Model.Requests()[0].Body); strings.Contains(body, `"get_goal"`) {
		tools = "offered"
	}
	return append(out, "goal tools: "+tools)
}

// collapseRuns replaces each run of method in seq by one.
func collapseRuns(seq []string, method string) []string {
	var out []string
	for _, s := range seq {
		if s == method && len(out) > 0 && out[len(out)-1] == method {
			continue
		}
		out = append(out, s)
	}
	return out
}
