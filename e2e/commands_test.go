package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCommands puts user commands and a trusted project's commands in place (the
// project's hello.md yields to the user's own).
func writeCommands(t *testing.T, e *env) {
	t.Helper()
	trustProject(t, e, e.Workdir, "trusted")
	user := filepath.Join(e.CodexHome, "prompts")
	project := filepath.Join(e.Workdir, ".codex", "prompts")
	for dir, files := range map[string]map[string]string{
		user:    {"bugs.md": "---\ndescription: Find bugs\nargument-hint: FILE [FOCUS=...]\n---\nLook for bugs in $1, focusing on $FOCUS.\n", "hello.md": "user hello"},
		project: {"hello.md": "project hello", "greet.md": "project greeting to $ARGUMENTS", "bad.md": "caf\xe9"},
	} {
		os.MkdirAll(dir, 0o755)
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func lastRequestUserText(t *testing.T, e *env) string {
	reqs := e.Model.Requests()
	in := requestInput(t, reqs[len(reqs)-1].Body)
	return in[len(in)-1]
}

// A custom command given to exec is expanded with its positional and named arguments; the
// user's command of a name keeps it against the project's; a file that cannot be read is a
// warning naming it; an unknown /word reaches the model as typed, as in Codex.
func TestExecCustomCommands(t *testing.T) {
	e := newEnv(t)
	writeCommands(t, e)
	e.Model.Enqueue(answer("ok"), answer("ok"), answer("ok"))
	r := e.run("", "exec", "--skip-git-repo-check", `/bugs main.go FOCUS="error paths"`)
	if r.Code != 0 || !strings.Contains(r.Stderr, "bad.md skipped: not UTF-8") {
		t.Fatalf("exec: %+v", r)
	}
	if got := lastRequestUserText(t, e); got != "user: Look for bugs in main.go, focusing on error paths." {
		t.Errorf("expanded %q", got)
	}
	e.run("", "exec", "--skip-git-repo-check", "/prompts:greet the team")
	if got := lastRequestUserText(t, e); got != "user: project greeting to the team" {
		t.Errorf("project command %q", got)
	}
	e.Model.Enqueue(answer("ok"))
	e.run("", "exec", "--skip-git-repo-check", "/hello")
	if got := lastRequestUserText(t, e); got != "user: user hello" {
		t.Errorf("the user's own /hello: %q", got)
	}
	e.run("", "exec", "--skip-git-repo-check", "/nosuch thing")
	if got := lastRequestUserText(t, e); got != "user: /nosuch thing" {
		t.Errorf("unknown command %q", got)
	}
}

// The same command in the terminal UI; /commands lists them.
func TestTUICustomCommand(t *testing.T) {
	e := newEnv(t)
	writeCommands(t, e)
	e.Model.Enqueue(answer("BUGSFOUND"))
	s := e.startTUI("-a", "never", "-s", "read-only")
	pos := s.screen.waitFor(t, "bad.md skipped", 0)
	pos = s.screen.waitFor(t, "Ask gocodex to do anything", pos)
	s.typeKeys("/commands\r")
	pos = s.screen.waitFor(t, "/bugs FILE [FOCUS=...]  Find bugs", pos)
	s.typeKeys("/bugs util.go FOCUS=races\r")
	pos = s.screen.waitFor(t, "BUGSFOUND", pos)
	s.quit(pos)
	if got := lastRequestUserText(t, e); got != "user: Look for bugs in util.go, focusing on races." {
		t.Errorf("expanded %q", got)
	}
}
