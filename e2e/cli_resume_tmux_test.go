package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxServer is a tmux server of the test's own (its own socket), ended at cleanup.
type tmuxServer struct {
	t      *testing.T
	socket string
	e      *env
}

func newTmux(t *testing.T, e *env) *tmuxServer {
	e.trustWorkdir()
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	ts := &tmuxServer{t: t, socket: fmt.Sprintf("gocodex-e2e-%d", time.Now().UnixNano()), e: e}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	return ts
}

func (ts *tmuxServer) tmux(args ...string) string {
	ts.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", ts.socket}, args...)...).CombinedOutput()
	if err != nil {
		ts.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// start runs gocodex with args in a new 100x30 tmux session named name, in the env's world;
// the pane stays after the program ends so its exit can be seen.
func (ts *tmuxServer) start(name string, args ...string) {
	ts.t.Helper()
	cmd := []string{"new-session", "-d", "-s", name, "-x", "100", "-y", "30", "-c", ts.e.Workdir}
	for _, kv := range ts.e.environ() {
		if !strings.HasPrefix(kv, "TMUX") {
			cmd = append(cmd, "-e", kv)
		}
	}
	cmd = append(cmd, "-e", "TERM=tmux-256color", binary)
	ts.tmux(append(cmd, args...)...)
	ts.tmux("set-option", "-t", name, "remain-on-exit", "on")
}

// waitScreen waits until the visible pane shows every one of want (white space ignored).
func (ts *tmuxServer) waitScreen(name string, want ...string) string {
	ts.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		screen := ts.tmux("capture-pane", "-p", "-S", "-400", "-t", name) // inline: earlier cells are in the scrollback
		flat := strings.Join(strings.Fields(screen), "")
		missing := ""
		for _, w := range want {
			if !strings.Contains(flat, strings.Join(strings.Fields(w), "")) {
				missing = w
				break
			}
		}
		if missing == "" {
			return screen
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("%q never appeared in tmux session %s:\n%s", missing, name, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quit presses Ctrl+C twice and waits for the program to end.
func (ts *tmuxServer) quit(name string) {
	ts.t.Helper()
	ts.tmux("send-keys", "-t", name, "C-c")
	ts.waitScreen(name, "Press Ctrl+C again to quit")
	ts.tmux("send-keys", "-t", name, "C-c")
	deadline := time.Now().Add(30 * time.Second)
	for strings.TrimSpace(ts.tmux("display-message", "-p", "-t", name, "#{pane_dead}")) != "1" {
		if time.Now().After(deadline) {
			ts.t.Fatalf("gocodex in %s did not exit:\n%s", name, ts.tmux("capture-pane", "-p", "-t", name))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCLIResumeLastInTmux: in a real terminal multiplexer, `gocodex resume --last` opens the
// previous conversation with its history on screen (read back with capture-pane), and the
// next message continues it.
func TestCLIResumeLastInTmux(t *testing.T) {
	e := newEnv(t)
	ts := newTmux(t, e)
	e.Model.Enqueue(answer("TMUXFIRSTANSWER"), answer("TMUXSECONDANSWER"))
	ts.converse("first", "TMUXFIRSTQUESTION", "TMUXFIRSTANSWER")

	ts.start("resumed", "resume", "--last")
	ts.waitScreen("resumed", "TMUXFIRSTQUESTION", "TMUXFIRSTANSWER", "Ask gocodex to do anything")
	if n := len(e.Model.Requests()); n != 1 {
		t.Fatalf("resuming asked the model: %d requests", n)
	}
	ts.tmux("send-keys", "-t", "resumed", "-l", "TMUXSECONDQUESTION")
	ts.tmux("send-keys", "-t", "resumed", "Enter")
	ts.waitScreen("resumed", "TMUXSECONDANSWER")
	ts.quit("resumed")
	reqs := e.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "TMUXFIRSTANSWER") {
		t.Errorf("the resumed turn did not carry the first one (%d requests)", len(reqs))
	}
	if n := len(rolloutFiles(t, e.CodexHome)); n != 1 {
		t.Errorf("%d rollouts, want the one resumed", n)
	}
}

// TestCLIResumePickerInTmux: `gocodex resume` without an id opens the picker of saved
// sessions, each shown by its first message, and choosing one continues it; an unknown id
// says so above the same picker.
func TestCLIResumePickerInTmux(t *testing.T) {
	e := newEnv(t)
	ts := newTmux(t, e)
	e.Model.Enqueue(answer("PICKFIRSTANSWER"), answer("PICKSECONDANSWER"))
	ts.converse("first", "PICKFIRSTQUESTION", "PICKFIRSTANSWER")

	ts.start("unknown", "resume", "00000000-0000-0000-0000-000000000000")
	ts.waitScreen("unknown", "No saved session found with ID 00000000-0000-0000-0000-000000000000", "Resume a previous session", "PICKFIRSTQUESTION")
	ts.quit("unknown")

	ts.pickAndContinue("resume", "Resume a previous session", "PICKFIRSTQUESTION", "PICKFIRSTANSWER", "PICKSECONDQUESTION", "PICKSECONDANSWER")
	reqs := e.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "PICKFIRSTANSWER") {
		t.Errorf("the picked thread was not continued (%d requests)", len(reqs))
	}
}

// TestCLIForkPickerInTmux: `gocodex fork` without an id opens the picker of saved sessions
// too (the README promises it, as Codex has it); choosing one continues a copy, and the
// original rollout is left as it was.
func TestCLIForkPickerInTmux(t *testing.T) {
	e := newEnv(t)
	ts := newTmux(t, e)
	e.Model.Enqueue(answer("FORKPICKFIRSTANSWER"), answer("FORKPICKSECONDANSWER"))
	ts.converse("first", "FORKPICKFIRSTQUESTION", "FORKPICKFIRSTANSWER")
	original := rolloutFiles(t, e.CodexHome)
	if len(original) != 1 {
		t.Fatalf("rollouts before the fork: %v", original)
	}
	before, _ := os.ReadFile(filepath.Join(e.CodexHome, original[0]))

	ts.pickAndContinue("fork", "Fork a previous session", "FORKPICKFIRSTQUESTION", "FORKPICKFIRSTANSWER", "FORKPICKSECONDQUESTION", "FORKPICKSECONDANSWER")
	reqs := e.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "FORKPICKFIRSTANSWER") {
		t.Errorf("the picked thread's history was not carried into the fork (%d requests)", len(reqs))
	}
	after, _ := os.ReadFile(filepath.Join(e.CodexHome, original[0]))
	if string(after) != string(before) {
		t.Errorf("the fork wrote into the original rollout")
	}
	if n := len(rolloutFiles(t, e.CodexHome)); n < 2 {
		t.Errorf("%d rollouts, want the original and the fork", n)
	}
}

// pickAndContinue runs `gocodex VERB` without an id, waits for its picker (title) to offer the
// session that asked firstQ, picks it, waits for that session's answer, asks secondQ and
// waits for secondA, then quits.
func (ts *tmuxServer) pickAndContinue(verb, title, firstQ, firstA, secondQ, secondA string) {
	ts.t.Helper()
	ts.start("picker", verb)
	ts.waitScreen("picker", title, firstQ)
	ts.tmux("send-keys", "-t", "picker", "Enter")
	ts.waitScreen("picker", firstA, "Ask gocodex to do anything")
	ts.tmux("send-keys", "-t", "picker", "-l", secondQ)
	ts.tmux("send-keys", "-t", "picker", "Enter")
	ts.waitScreen("picker", secondA)
	ts.quit("picker")
}

// converse runs `gocodex QUESTION` in a window of its own, waits for the question and the
// answer on screen, and quits: a saved session for the test to come back to.
func (ts *tmuxServer) converse(window, question, answer string) {
	ts.t.Helper()
	ts.start(window, question)
	ts.waitScreen(window, question, answer)
	ts.quit(window)
}
