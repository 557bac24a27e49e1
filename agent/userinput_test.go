package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/userinput"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

const colorQuestion = `{"questions":[{"id":"color","header":"Color","question":"Which color?",` +
	`"options":[{"label":"Red (Recommended)","description":"Warm."},{"label":"Blue","description":"Cool."}]}]}`

func questionHarness(t *testing.T) *harness {
	return questionHarnessWith(t, userinput.Options{DefaultMode: true})
}

func questionHarnessWith(t *testing.T, o userinput.Options) *harness {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ModelInfo.Tools = tool.Options{ShellType: tools.ShellTypeDisabled, RequestUserInput: true}
		c.ToolHandlers = map[string]tool.Handler{
			tools.NameRequestUserInput: userinput.New(o),
		}
	}})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("q1", "request_user_input", colorQuestion), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "blue it is"), testkit.Completed(testkit.Usage{})),
	)
	return h
}

// The call waits for the user's answer op, which names the turn; the answers go back to
// the model as JSON.
func TestRequestUserInputAnswered(t *testing.T) {
	h := questionHarness(t)
	h.say("pick a color")
	evs := h.until(isType("request_user_input"))
	req := evs[len(evs)-1]
	ev := req.Msg.(protocol.RequestUserInputEvent)
	want := protocol.RequestUserInputEvent{CallID: "q1", TurnID: req.ID, Questions: []protocol.RequestUserInputQuestion{{
		ID: "color", Header: "Color", Question: "Which color?", IsOther: true,
		Options: []protocol.RequestUserInputOption{{Label: "Red (Recommended)", Description: "Warm."}, {Label: "Blue", Description: "Cool."}},
	}}}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Fatalf("event (-want +got):\n%s", diff)
	}
	// An answer for another turn is ignored; the right one resumes the call.
	h.submit(protocol.UserInputAnswerOp{ID: "not-this-turn", Response: protocol.RequestUserInputResponse{}})
	h.submit(protocol.UserInputAnswerOp{ID: ev.TurnID, Response: protocol.RequestUserInputResponse{
		Answers: map[string]protocol.RequestUserInputAnswer{"color": {Answers: []string{"Blue", "user_note: darker"}}}}})
	if _, ok := find[protocol.TurnCompleteEvent](h.until(turnEnd)); !ok {
		t.Fatal("turn did not complete")
	}
	in := h.requestInput(1)
	if out := in[len(in)-1]["output"]; out != `{"answers":{"color":{"answers":["Blue","user_note: darker"]}}}` {
		t.Errorf("output = %v", out)
	}
}

// An interrupt while the question is open aborts the turn; the call's output is "aborted".
func TestRequestUserInputInterrupted(t *testing.T) {
	h := questionHarness(t)
	h.say("pick a color")
	h.until(isType("request_user_input"))
	h.submit(protocol.InterruptOp{})
	if _, ok := find[protocol.TurnAbortedEvent](h.until(turnEnd)); !ok {
		t.Fatal("turn was not aborted")
	}
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("never mind")
	h.until(turnEnd)
	in := h.requestInput(1)
	var got []string
	for _, s := range summarize(in) {
		if s == "function_call_output q1: aborted" {
			got = append(got, s)
		}
	}
	if len(got) != 1 {
		t.Errorf("no aborted output in %v", summarize(in))
	}
}

// Without the feature a Default-mode call is refused in Codex's words; after a switch to
// Plan mode the same call asks.
func TestRequestUserInputFollowsMode(t *testing.T) {
	h := questionHarnessWith(t, userinput.Options{})
	h.say("pick a color")
	if _, ok := find[protocol.RequestUserInputEvent](h.until(turnEnd)); ok {
		t.Fatal("asked in Default mode")
	}
	if in := h.requestInput(1); in[len(in)-1]["output"] != userinput.UnavailableOutput {
		t.Errorf("output = %v", in[len(in)-1]["output"])
	}
	h.submit(protocol.OverrideTurnContextOp{CollaborationMode: &protocol.CollaborationMode{Mode: protocol.ModePlan, Settings: protocol.CollaborationModeSettings{Model: "test-model"}}})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("q2", "request_user_input", colorQuestion), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("plan a color")
	evs := h.until(isType("request_user_input"))
	h.submit(protocol.UserInputAnswerOp{ID: evs[len(evs)-1].Msg.(protocol.RequestUserInputEvent).TurnID})
	h.until(turnEnd)
}
