package tui

import (
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

var twoQuestions = protocol.RequestUserInputEvent{CallID: "q1", TurnID: "t1", Questions: []protocol.RequestUserInputQuestion{
	{ID: "color", Header: "Color", Question: "Which color do you want?", IsOther: true, Options: []protocol.RequestUserInputOption{
		{Label: "Red (Recommended)", Description: "Warm."}, {Label: "Blue", Description: "Cool."}}},
	{ID: "size", Header: "Size", Question: "Which size?", IsOther: true, Options: []protocol.RequestUserInputOption{
		{Label: "Small", Description: "Fits."}, {Label: "Large", Description: "Roomy."}}},
}}

func answerOp(answers map[string][]string) protocol.Op {
	r := protocol.RequestUserInputResponse{Answers: map[string]protocol.RequestUserInputAnswer{}}
	for id, a := range answers {
		r.Answers[id] = protocol.RequestUserInputAnswer{Answers: a}
	}
	return protocol.UserInputAnswerOp{ID: "t1", Response: r}
}

func openQuestions(t *testing.T) *harness {
	h := newHarness(t, "")
	h.typeText("pick")
	h.key(keyEnter)
	h.eng.takeOps()
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(twoQuestions)
	return h
}

// Arrows and Enter pick an option, a digit picks directly; both answers go out together
// once the last question is answered, and the composer is back.
func TestQuestionsAnsweredWithOptions(t *testing.T) {
	h := openQuestions(t)
	h.golden("question_options")
	h.key(tea.Key{Code: tea.KeyDown})
	h.key(keyEnter)
	checkOps(t, h, nil)
	if !strings.Contains(h.screen(), "Size (2 of 2)") || !strings.Contains(h.screen(), "✔ Color: Blue") {
		t.Errorf("second question not shown:\n%s", h.screen())
	}
	h.key(runeKey('1'))
	checkOps(t, h, []protocol.Op{answerOp(map[string][]string{"color": {"Blue"}, "size": {"Small"}})})
	h.typeText("ok")
	if got := h.m.input.Value(); got != "ok" {
		t.Errorf("composer = %q after the questions", got)
	}
}

// "Other" takes free text (sent as a user note, as Codex does); Esc goes back to the options
// first, and interrupts the turn from there.
func TestQuestionsFreeTextAndEsc(t *testing.T) {
	h := openQuestions(t)
	h.key(runeKey('3')) // Other
	h.typeText("green")
	h.golden("question_other")
	h.key(keyEsc) // back to the options, text dropped
	checkOps(t, h, nil)
	h.key(runeKey('3'))
	h.typeText("teal")
	h.key(keyEnter)
	h.key(runeKey('2'))
	checkOps(t, h, []protocol.Op{answerOp(map[string][]string{"color": {"user_note: teal"}, "size": {"Large"}})})

	h = openQuestions(t)
	h.key(keyEsc)
	checkOps(t, h, []protocol.Op{protocol.InterruptOp{}})
	h.event(protocol.TurnAbortedEvent{TurnID: "t1", Reason: protocol.AbortInterrupted})
	if h.m.question != nil {
		t.Error("the question stayed open after the turn ended")
	}
}

// A question without options is free text straight away.
func TestQuestionWithoutOptions(t *testing.T) {
	h := newHarness(t, "")
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	h.event(protocol.RequestUserInputEvent{TurnID: "t1", Questions: []protocol.RequestUserInputQuestion{{ID: "name", Header: "Name", Question: "What name?"}}})
	h.typeText("Ada")
	h.key(keyEnter)
	checkOps(t, h, []protocol.Op{answerOp(map[string][]string{"name": {"user_note: Ada"}})})
}
