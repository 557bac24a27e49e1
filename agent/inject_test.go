package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

// Injected items join the history (and the rollout) without a turn; an item of an unknown
// type is left out. A goal turn opens with its items and emits no user message; an output
// with no call (Codex's goal_objective) reaches the model as written.
func TestInjectItemsAndGoalTurn(t *testing.T) {
	rec := &memRecorder{}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.Recorder = rec }})
	h.srv.Enqueue(answer("m1", "one", 10), answer("m2", "two", 10), answer("m3", "three", 10))
	h.say("first")
	h.until(turnEnd)
	h.submit(protocol.InjectItemsOp{Items: []json.RawMessage{
		json.RawMessage(`{"type":"message","role":"user","content":[{"type":"input_text","text":"injected"}]}`),
		json.RawMessage(`{"type":"bogus"}`),
	}})
	h.say("second")
	h.until(turnEnd)
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one", "user: injected", "user: second"}
	if diff := cmp.Diff(want, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("request after injection (-want +got):\n%s", diff)
	}
	h.submit(protocol.GoalTurnOp{Items: []json.RawMessage{
		json.RawMessage(`{"type":"function_call_output","name":"goal_objective","namespace":"agent","output":"ship it"}`),
		json.RawMessage(`{"type":"message","role":"user","content":[{"type":"input_text","text":"continue"}]}`),
	}})
	evs := h.until(turnEnd)
	if _, ok := find[protocol.UserMessageEvent](evs); ok {
		t.Error("a goal turn emitted a user message")
	}
	in := h.requestInput(2)
	got := summarize(in)
	wantTail := []string{"user: second", "assistant: two", "function_call_output %!s(<nil>): ship it", "user: continue"}
	if diff := cmp.Diff(wantTail, got[len(got)-4:]); diff != "" {
		t.Errorf("goal turn's request (-want +got):\n%s", diff)
	}
	if obj := in[len(in)-2]; obj["name"] != "goal_objective" || obj["namespace"] != "agent" {
		t.Errorf("goal_objective item as sent: %v", obj)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	raw, _ := json.Marshal(rec.items)
	for _, s := range []string{`"injected"`, `"goal_objective"`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("the rollout lacks %s", s)
		}
	}
}
