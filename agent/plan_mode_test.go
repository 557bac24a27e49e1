package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// The splitter cuts a streamed message as Codex 0.169 did on the same deltas: the tag lines
// vanish, text before and after stays the message, the lines between are the plan.
func TestPlanSplitterMatchesCodexDeltas(t *testing.T) {
	var p planSplitter
	var got []string
	for _, d := range []string{"Here is my plan.\n<pr", "oposed_plan>\n# Plan\n1. Do A\n2.", " Do B\n</proposed_plan>\nDone."} {
		for _, pc := range p.feed(d) {
			got = append(got, describe(pc))
		}
	}
	for _, pc := range p.finish() {
		got = append(got, describe(pc))
	}
	want := []string{`agent "Here is my plan.\n"`, "open", `plan "# Plan\n1. Do A\n2."`, `plan " Do B\n"`, "close", `agent "Done."`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("pieces (-want +got):\n%s", diff)
	}
	if p.text.String() != "# Plan\n1. Do A\n2. Do B\n" || p.message.String() != "Here is my plan.\nDone." {
		t.Errorf("plan %q message %q", p.text.String(), p.message.String())
	}
}

func describe(pc planPiece) string {
	switch {
	case pc.open:
		return "open"
	case pc.close:
		return "close"
	case pc.plan:
		return "plan " + strconvQuote(pc.text)
	}
	return "agent " + strconvQuote(pc.text)
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Tags inside a line, a second plan, an unclosed plan and a lone "<" are handled without
// losing a character.
func TestSplitPlanEdgeCases(t *testing.T) {
	cases := []struct{ in, msg, plan string }{
		{"no plan here", "no plan here", ""},
		{"see <proposed_plan> inline", "see <proposed_plan> inline", ""},
		{"<proposed_plan>\nA\n</proposed_plan>\n<proposed_plan>\nB\n</proposed_plan>", "<proposed_plan>\nB\n</proposed_plan>", "A\n"},
		{"x\n<proposed_plan>\nunfinished", "x\n", "unfinished"},
		{"a <\n<", "a <\n<", ""},
		{"  <proposed_plan>  \r\nP\r\n</proposed_plan>", "", "P\r\n"},
	}
	for _, c := range cases {
		msg, plan, _ := splitPlan(c.in)
		if msg != c.msg || plan != c.plan {
			t.Errorf("splitPlan(%q) = %q, %q; want %q, %q", c.in, msg, plan, c.msg, c.plan)
		}
	}
}

// A plan-mode turn: the model is told the mode once (and again when it changes), the plan
// streams as a Plan item, the message keeps only its own text, and history keeps it whole.
func TestPlanModeTurn(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.ModelInfo.SupportsReasoning = true }})
	plan := "Here is my plan.\n<proposed_plan>\n# Plan\n1. Do A\n2. Do B\n</proposed_plan>\nDone."
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("m1", plan[:20], plan[20:50], plan[50:]), testkit.Completed(testkit.Usage{})),
		answer("m2", "again", 5), answer("m3", "back", 5))
	h.submit(protocol.OverrideTurnContextOp{CollaborationMode: &protocol.CollaborationMode{Mode: protocol.ModePlan, Settings: protocol.CollaborationModeSettings{Model: "test-model"}}})
	h.say("plan it")
	evs := h.until(turnEnd)
	started, _ := find[protocol.TurnStartedEvent](evs)
	if started.CollaborationModeKind != "plan" {
		t.Errorf("turn mode %q", started.CollaborationModeKind)
	}
	var seq []string
	for _, ev := range evs {
		switch m := ev.Msg.(type) {
		case protocol.AgentMessageDeltaEvent:
			seq = append(seq, "delta "+strconvQuote(m.Delta))
		case protocol.PlanDeltaEvent:
			seq = append(seq, "plan "+strconvQuote(m.Delta))
		case protocol.ItemStartedEvent:
			if strings.Contains(string(m.Item), `"Plan"`) {
				seq = append(seq, "started "+string(m.Item))
			}
		case protocol.ItemCompletedEvent:
			seq = append(seq, "completed "+string(m.Item))
		case protocol.AgentMessageEvent:
			seq = append(seq, "message "+strconvQuote(m.Message))
		}
	}
	id := started.TurnID + "-plan"
	want := []string{`delta "Here is my plan.\n"`, `started {"type":"Plan","id":"` + id + `","text":""}`, `plan "# Plan\n1. Do A\n2."`, `plan " Do B\n"`, `delta "Done."`,
		`completed {"type":"Plan","id":"` + id + `","text":"# Plan\n1. Do A\n2. Do B\n"}`, `message "Here is my plan.\nDone."`}
	if diff := cmp.Diff(want, seq); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	h.say("again")
	h.until(turnEnd)
	h.submit(protocol.OverrideTurnContextOp{CollaborationMode: &protocol.CollaborationMode{Mode: protocol.ModeDefault, Settings: protocol.CollaborationModeSettings{Model: "test-model"}}})
	h.say("back")
	h.until(turnEnd)
	modeMessages := func(i int) (out []string) {
		for _, line := range summarize(h.requestInput(i)) {
			if strings.Contains(line, "<collaboration_mode>") {
				out = append(out, line)
			}
		}
		return out
	}
	if got := modeMessages(0); len(got) != 1 || !strings.Contains(got[0], "# Plan Mode") {
		t.Errorf("first request: %v", got)
	}
	if got := modeMessages(1); len(got) != 1 {
		t.Errorf("the mode was told again: %v", got)
	}
	if got := modeMessages(2); len(got) != 2 || !strings.Contains(got[1], "Collaboration Mode: Default") {
		t.Errorf("back to default: %v", got)
	}
	if body := string(h.srv.Requests()[0].Body); !strings.Contains(body, `"effort":"medium"`) {
		t.Error("plan mode without an effort does not run at the Plan preset's medium")
	}
	if !strings.Contains(string(h.srv.Requests()[1].Body), `# Plan\n1. Do A`) {
		t.Error("history lost the proposed plan")
	}
}
