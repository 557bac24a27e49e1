package e2e

import (
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// /agents in a real terminal: the scripted model has the main thread spawn a child (the
// sub-agent script); /agents lists it, choosing it shows the child's own transcript (its
// command and answer), and choosing the main thread shows the main thread's answer again.
func TestTUITmuxAgentsSwitchesToTheChild(t *testing.T) {
	e := newEnv(t)
	e.Model.SetDefault(tk.Replying(subagentReply))
	u := e.startTmuxUI("--enable", "multi_agent_v2", "-a", "never")
	u.waitFor("Ask gocodex to do anything")
	u.typeLine(rootPrompt)
	u.waitFor("Sub-agent /root/worker started", "root reports: "+childAnswer)
	u.typeLine("/agents")
	u.waitFor("Subagents", "Select an agent to watch.", "Main [default] (current)", "• /root/worker")
	u.pane.sendKeys(false, "Down")
	u.pane.sendKeys(false, "Enter")
	scr := u.waitFor("Sub-agent /root/worker (thread ")
	child := scr[strings.LastIndex(scr, "Sub-agent /root/worker (thread "):]
	if !strings.Contains(child, childCommand) || !strings.Contains(child, childAnswer) || strings.Contains(child, "root reports") {
		t.Fatalf("the child's transcript is not what the child did:\n%s", child)
	}
	u.typeLine("/subagents")
	u.waitFor("2. • /root/worker (current)")
	u.pane.sendKeys(false, "Up")
	u.pane.sendKeys(false, "Enter")
	waitGone(t, u, "enter select · esc back")
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr = u.screen()
		back := scr[strings.LastIndex(scr, "Sub-agent /root/worker (thread "):]
		if strings.Contains(back, "root reports: "+childAnswer) && strings.Contains(back, rootPrompt) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the main thread is not shown again:\n%s", scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.quit()
}
