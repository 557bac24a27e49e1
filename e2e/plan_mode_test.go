package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// planAnswer streams a message holding a proposed plan, cut where Codex 0.169 was observed.
func planAnswer() tk.Response {
	plan := "Here is my plan.\n<proposed_plan>\n# Plan\n1. Do A\n2. Do B\n</proposed_plan>\nDone."
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", plan[:20], plan[20:50], plan[50:]), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))
}

type planRun struct {
	list, refusedList, refusedTurn json.RawMessage
	seq                            []string
	plan                           map[string]any
	deltas                         []string
	message                        string
	requests                       []tk.Request
}

// runPlanTurn lists the collaboration modes, then runs one turn in plan mode through bin's
// app-server (experimentalApi on, as Codex requires); a second connection without the
// capability is refused.
func runPlanTurn(t *testing.T, bin string) planRun {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{RequestMaxRetries: tk.Int(1), StreamMaxRetries: tk.Int(0)})
	e.Model.Enqueue(planAnswer())
	var out planRun

	plain, stopPlain := e.startAppServerOf(bin)
	plain.sess.Unschematized("collaborationMode/list")
	_, e1 := plain.call("collaborationMode/list", map[string]any{})
	id := plain.startThread(map[string]any{"cwd": e.Workdir})
	_, e2 := plain.call("turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "x"}},
		"collaborationMode": map[string]any{"mode": "plan", "settings": map[string]any{"model": "gpt-5.5", "reasoning_effort": nil, "developer_instructions": nil}}})
	for _, e := range []*rpcMsg{e1, e2} {
		if e == nil {
			t.Fatalf("%s: an experimental method or field was accepted without experimentalApi", bin)
		}
		b, _ := json.Marshal(e.Error)
		if out.refusedList == nil {
			out.refusedList = b
		} else {
			out.refusedTurn = b
		}
	}
	stopPlain()

	e.capabilities = map[string]any{"experimentalApi": true}
	c, stop := e.startAppServerOf(bin)
	defer stop()
	c.sess.Unschematized("collaborationMode/list")
	out.list, _ = c.call("collaborationMode/list", map[string]any{})
	id = c.startThread(map[string]any{"cwd": e.Workdir})
	c.mustCall("turn/start", map[string]any{"threadId": id, "input": []map[string]any{{"type": "text", "text": "plan it"}},
		"collaborationMode": map[string]any{"mode": "plan", "settings": map[string]any{"model": "gpt-5.5", "reasoning_effort": nil, "developer_instructions": nil}}}, nil)
	for _, m := range c.until("turn/completed") {
		p := params(m)
		switch m.Method {
		case "item/plan/delta":
			out.deltas = append(out.deltas, p["delta"].(string))
		case "item/started", "item/completed":
			it := p["item"].(map[string]any)
			switch it["type"] {
			case "plan":
				if m.Method == "item/completed" {
					out.plan = it
				}
			case "agentMessage":
				if m.Method == "item/completed" {
					out.message = it["text"].(string)
				}
			}
			out.seq = append(out.seq, m.Method+":"+it["type"].(string))
		case "item/agentMessage/delta":
			out.seq = append(out.seq, m.Method)
		}
	}
	out.requests = e.Model.Requests()
	return out
}

// Plan mode through the app-server: collaborationMode/list and turn/start.collaborationMode
// behind experimentalApi, the plan as a plan item streamed with item/plan/delta, the
// message without it, the mode told to the model; the same as Codex 0.169 where installed.
func TestAppServerPlanMode(t *testing.T) {
	ours := runPlanTurn(t, binary)
	if got := string(ours.list); got != `{"data":[{"name":"Plan","mode":"plan","model":null,"reasoning_effort":"medium"},{"name":"Default","mode":"default","model":null,"reasoning_effort":null}]}` {
		t.Errorf("collaborationMode/list: %s", got)
	}
	if !strings.Contains(string(ours.refusedList), "collaborationMode/list requires experimentalApi capability") ||
		!strings.Contains(string(ours.refusedTurn), "turn/start.collaborationMode requires experimentalApi capability") {
		t.Errorf("refusals: %s %s", ours.refusedList, ours.refusedTurn)
	}
	want := []string{"item/started:userMessage", "item/completed:userMessage", "item/started:agentMessage", "item/agentMessage/delta",
		"item/started:plan", "item/agentMessage/delta", "item/completed:plan", "item/completed:agentMessage"}
	if diff := cmp.Diff(want, ours.seq); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if ours.plan["text"] != "# Plan\n1. Do A\n2. Do B\n" || ours.message != "Here is my plan.\nDone." ||
		!cmp.Equal(ours.deltas, []string{"# Plan\n1. Do A\n2.", " Do B\n"}) {
		t.Errorf("plan %v, deltas %q, message %q", ours.plan, ours.deltas, ours.message)
	}
	if len(ours.requests) != 1 || !strings.Contains(string(ours.requests[0].Body), `<collaboration_mode># Plan Mode`) ||
		!strings.Contains(string(ours.requests[0].Body), `"effort":"medium"`) {
		t.Errorf("the model was not put in plan mode")
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		theirs := runPlanTurn(t, ref)
		if string(theirs.list) != string(ours.list) || string(theirs.refusedList) != string(ours.refusedList) || string(theirs.refusedTurn) != string(ours.refusedTurn) {
			t.Errorf("codex answers %s / %s / %s", theirs.list, theirs.refusedList, theirs.refusedTurn)
		}
		// Codex starts the agent message item before its first delta arrives; so do we.
		if diff := cmp.Diff(theirs.seq, ours.seq); diff != "" {
			t.Errorf("items (-codex +ours):\n%s", diff)
		}
		if !cmp.Equal(theirs.deltas, ours.deltas) || theirs.plan["text"] != ours.plan["text"] || theirs.plan["id"] == nil || theirs.message != ours.message {
			t.Errorf("codex plan %v deltas %q message %q", theirs.plan, theirs.deltas, theirs.message)
		}
	}
}

// /plan in the terminal UI: the next turn runs in plan mode and the proposed plan is shown
// as a plan of its own; /plan again goes back to the default mode.
func TestTUIPlanMode(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(planAnswer(), answer("BACKTODEFAULT"))
	s := e.startTUI("-a", "never", "-s", "read-only")
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("/plan\r")
	pos = s.screen.waitFor(t, "Plan mode on", pos)
	s.typeKeys("plan it\r")
	pos = s.screen.waitFor(t, "Proposed Plan", pos)
	pos = s.screen.waitFor(t, "2. Do B", pos)
	pos = s.screen.waitFor(t, "Token usage:", pos) // the turn is over: commands are disabled while it runs
	s.typeKeys("/plan\r")
	pos = s.screen.waitFor(t, "Plan mode off", pos)
	s.typeKeys("go\r")
	pos = s.screen.waitFor(t, "BACKTODEFAULT", pos)
	s.quit(pos)
	reqs := e.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "<collaboration_mode># Plan Mode") ||
		!strings.Contains(string(reqs[1].Body), "<collaboration_mode># Collaboration Mode: Default") {
		t.Fatalf("%d requests; the model was not told the modes", len(reqs))
	}
}
