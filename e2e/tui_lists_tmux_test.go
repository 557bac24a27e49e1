package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /hooks counts each event's installed and active hooks and shows an event's hooks; /skills
// lists the skills and mentions the chosen one in the composer.
func TestTUITmuxHooksAndSkills(t *testing.T) {
	e := newEnv(t)
	hooksJSON := `{"hooks":{"PreToolUse":[{"matcher":"shell","hooks":[{"type":"command","command":"echo checked"}]}]}}`
	if err := os.WriteFile(filepath.Join(e.CodexHome, "hooks.json"), []byte(hooksJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(e.CodexHome, "skills", "greeter")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: greeter\ndescription: Greets people warmly.\n---\nSay hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/hooks")
	u.waitFor("Lifecycle hooks from config and enabled plugins.", "PreToolUse            1          0", "SessionStart          0          0")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("PreToolUse hooks", "• echo checked  matcher: shell", "inactive (untrusted)")
	u.typeLine("/skills")
	u.waitFor("Skills", "greeter", "Greets people warmly.")
	u.pane.sendKeys(true, "greet")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("› $greeter")
	u.quit()
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: a UI command went to the model", n)
	}
}

// /recap shows the model's summary; the recap request happens beside the thread: the
// thread's next request carries neither it nor the recap.
func TestTUITmuxRecapStaysOutOfThread(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("FIRSTANSWER"), answer("RECAP-TEXT: you asked about APPLE"), answer("NEXTANSWER"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/recap")
	u.waitFor("There is no conversation history to recap.")
	u.typeLine("tell me about APPLE")
	u.waitFor("FIRSTANSWER")
	waitIdle(u)
	u.typeLine("/recap")
	u.waitFor("Recap", "RECAP-TEXT: you asked about APPLE")
	u.typeLine("and then?")
	u.waitFor("NEXTANSWER")
	u.quit()
	reqs := e.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	recapAsked := strings.Join(reqs[1].MessageTexts("user"), "\n")
	if !strings.Contains(recapAsked, "tell me about APPLE") || !strings.Contains(recapAsked, "recap") {
		t.Errorf("the recap request: %q", recapAsked)
	}
	next := string(reqs[2].Body)
	if strings.Contains(next, "RECAP-TEXT") || strings.Contains(next, "short recap") {
		t.Errorf("the recap reached the thread's next request")
	}
}
