package e2e

import (
	"strings"
	"testing"
)

// TestCLIMistypedSubcommand: a lone word a letter or two from a subcommand is refused with
// the subcommand named (exit 2, no chat started, no model request); other words, several
// words, and anything after `--` remain the prompt of a new chat. Codex 0.169 sends even
// `codex exce` to the model: this is where gocodex deliberately differs.
func TestCLIMistypedSubcommand(t *testing.T) {
	e := newEnv(t)
	for word, near := range map[string]string{"exce": "exec", "archiv": "archive", "unarchvie": "unarchive", "completoin": "completion", "delte": "delete"} {
		r := e.run("", word)
		if r.Code != 2 || !strings.Contains(r.Stderr, "unrecognized subcommand '"+word+"'") ||
			!strings.Contains(r.Stderr, "a similar subcommand exists: '"+near+"'") || !strings.Contains(r.Stderr, "gocodex -- "+word) {
			t.Errorf("gocodex %s: %+v", word, r)
		}
	}
	if r := e.run("", "exce", "say hi"); r.Code != 2 || !strings.Contains(r.Stderr, "'exec'") {
		t.Errorf("gocodex exce 'say hi': %+v", r)
	}
	// Prompts: they reach the interactive UI, which refuses to start without a terminal.
	for _, args := range [][]string{{"hello"}, {"fix the bug"}, {"refactor"}, {"--", "exce"}, {"-m", "gpt-5.5", "hi"}} {
		r := e.run("", args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "stdin is not a terminal") {
			t.Errorf("gocodex %q: want the interactive UI's refusal, got %+v", args, r)
		}
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}

	// In a terminal, `gocodex -- exce` is a chat whose first message is "exce".
	e.Model.SetDefault(answer("TYPOANSWER"))
	s := e.startTUI("--", "exce")
	pos := s.screen.waitFor(t, "TYPOANSWER", 0)
	s.quit(pos)
	reqs := e.Model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"exce"`) {
		t.Errorf("model requests: %d, want one carrying \"exce\"", len(reqs))
	}
}
