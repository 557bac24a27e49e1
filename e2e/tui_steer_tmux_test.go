package e2e

import (
	"slices"
	"strings"
	"testing"
)

// Enter while a turn runs steers it: the message goes into the running turn's next model
// request (after the command's output), not into a turn of its own. Tab queues a message,
// which starts a new turn once this one ends.
func TestTUITmuxSteerMidTurn(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(commandCall("call_1", "sleep 4"), answer("STEERED-ANSWER"), answer("QUEUED-ANSWER"))
	u := e.startTmuxUI("-a", "never", "-s", "danger-full-access")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("start a slow job")
	u.waitFor("esc to interrupt")
	u.pane.sendKeys(true, "STEERTEXT please")
	u.waitFor("tab to queue message")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Messages to be submitted after next tool call", "↳ STEERTEXT please")
	u.pane.sendKeys(true, "QUEUEDTEXT later")
	u.pane.sendKeys(false, "Tab")
	u.waitFor("Queued follow-up inputs", "↳ QUEUEDTEXT later")
	u.waitFor("STEERED-ANSWER", "QUEUED-ANSWER", "› STEERTEXT please", "› QUEUEDTEXT later")
	waitIdle(u)
	u.quit()

	reqs := e.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want the command turn's two and the queued turn's one", len(reqs))
	}
	if texts := reqs[0].MessageTexts("user"); slices.ContainsFunc(texts, hasText("STEERTEXT")) {
		t.Errorf("the steer reached the model before it was typed: %q", texts)
	}
	// The second request continues the first turn: the command's output, then the steer.
	second := reqs[1]
	if _, ok := second.ToolOutput("call_1"); !ok {
		t.Fatalf("the second request does not carry the command's output")
	}
	if texts := second.MessageTexts("user"); !slices.ContainsFunc(texts, hasText("STEERTEXT please")) || slices.ContainsFunc(texts, hasText("QUEUEDTEXT")) {
		t.Errorf("second request's user messages %q: want the steer and not the queued message", texts)
	}
	if texts := reqs[2].MessageTexts("user"); !slices.ContainsFunc(texts, hasText("QUEUEDTEXT later")) {
		t.Errorf("third request's user messages %q: want the queued message", texts)
	}
}

func hasText(want string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, want) }
}
