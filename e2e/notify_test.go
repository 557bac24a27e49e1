package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// notifyScript writes a program that stores its arguments, NUL-separated, in out (written
// whole by a rename, so a reader never sees half of it).
func notifyScript(t *testing.T, out string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sh")
	body := "#!/bin/sh\nprintf '%s\\0' \"$@\" > " + strconv.Quote(out+".tmp") + " && mv " + strconv.Quote(out+".tmp") + " " + strconv.Quote(out) + "\n"
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitArgs waits for the notify program's arguments: it is not awaited, so it may finish
// after the command that started it.
func waitArgs(t *testing.T, out string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(out)
		if err == nil {
			os.Remove(out)
			return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		}
		if time.Now().After(deadline) {
			t.Fatalf("the notify program never ran (%v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// notifyRun runs `exec --json` with bin under a config naming the notify script and returns
// the arguments the script got and the thread id exec reported.
func notifyRun(t *testing.T, bin string, e *env, out string, args ...string) ([]string, string) {
	t.Helper()
	e.Model.Enqueue(answer("Hello from the model"))
	saved := binary
	binary = bin
	r := e.run("", append([]string{"exec", "--json", "--skip-git-repo-check"}, args...)...)
	binary = saved
	if r.Code != 0 {
		t.Fatalf("exec failed (%d): %s", r.Code, r.Stderr)
	}
	var threadID string
	for _, l := range jsonl(t, r.Stdout) {
		if l["type"] == "thread.started" {
			threadID, _ = l["thread_id"].(string)
		}
	}
	return waitArgs(t, out), threadID
}

func notifyEnv(t *testing.T, out string) *env {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{
		Extra: "notify = [" + strconv.Quote(notifyScript(t, out)) + `, "first-arg"]`})
	return e
}

// TestNotifyGetsTheTurnJSON: after each turn the program gets its own arguments and then the
// JSON Codex passes, compact and in Codex's key order; a resumed thread's input messages are
// cumulative.
func TestNotifyGetsTheTurnJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	e := notifyEnv(t, out)
	args, threadID := notifyRun(t, binary, e, out, "say hi")
	if len(args) != 2 || args[0] != "first-arg" {
		t.Fatalf("arguments = %q", args)
	}
	var p struct {
		TurnID string `json:"turn-id"`
	}
	if err := json.Unmarshal([]byte(args[1]), &p); err != nil || p.TurnID == "" {
		t.Fatalf("payload %q: %v", args[1], err)
	}
	want := `{"type":"agent-turn-complete","thread-id":"` + threadID + `","turn-id":"` + p.TurnID + `","cwd":"` + e.Workdir +
		`","client":"codex_exec","input-messages":["say hi"],"last-assistant-message":"Hello from the model"}`
	if args[1] != want {
		t.Fatalf("payload\n got %s\nwant %s", args[1], want)
	}

	args, again := notifyRun(t, binary, e, out, "resume", "--last", "second prompt")
	var second struct {
		ThreadID string   `json:"thread-id"`
		TurnID   string   `json:"turn-id"`
		Inputs   []string `json:"input-messages"`
	}
	if err := json.Unmarshal([]byte(args[len(args)-1]), &second); err != nil {
		t.Fatal(err)
	}
	if again != threadID || second.ThreadID != threadID || second.TurnID == p.TurnID ||
		!reflect.DeepEqual(second.Inputs, []string{"say hi", "second prompt"}) {
		t.Fatalf("after resume: %s (thread %s)", args[len(args)-1], threadID)
	}
}

// A notify program that does not exist is a logged warning: the turn completes.
func TestNotifyMissingProgram(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: `notify = ["/nonexistent/notify-program"]`})
	e.Model.Enqueue(answer("still answered"))
	r := e.run("", "exec", "--skip-git-repo-check", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "still answered") {
		t.Fatalf("exec: %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestNotifyMatchesReference: the same turn gives Codex 0.169's notify program the same
// arguments, ids and paths aside.
func TestNotifyMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	normalise := func(args []string, threadID string, e *env) []string {
		var m map[string]any
		if err := json.Unmarshal([]byte(args[len(args)-1]), &m); err != nil {
			t.Fatal(err)
		}
		if m["thread-id"] != threadID || m["cwd"] != e.Workdir {
			t.Errorf("payload %s: thread %s, cwd %s", args[len(args)-1], threadID, e.Workdir)
		}
		last := strings.Replace(args[len(args)-1], threadID, "THREAD", 1)
		last = strings.Replace(last, m["turn-id"].(string), "TURN", 1)
		last = strings.Replace(last, e.Workdir, "CWD", 1)
		return append(append([]string{}, args[:len(args)-1]...), last)
	}
	outA, outB := filepath.Join(t.TempDir(), "args"), filepath.Join(t.TempDir(), "args")
	ea, eb := notifyEnv(t, outA), notifyEnv(t, outB)
	ours, oursID := notifyRun(t, binary, ea, outA, "say hi")
	theirs, theirsID := notifyRun(t, ref, eb, outB, "say hi")
	if a, b := normalise(ours, oursID, ea), normalise(theirs, theirsID, eb); !reflect.DeepEqual(a, b) {
		t.Fatalf("notify arguments differ\n ours %q\ntheirs %q", a, b)
	}
}

// In the app-server the payload's client is the connection's clientInfo name, as Codex's.
func TestNotifyFromAppServer(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	e := notifyEnv(t, out)
	e.Model.Enqueue(answer("Hello from the model"))
	c, stop := e.startAppServer()
	defer stop()
	threadID := c.startThread(map[string]any{})
	turnID := c.turn(threadID, "say hi")
	c.until("turn/completed")
	args := waitArgs(t, out)
	want := `{"type":"agent-turn-complete","thread-id":"` + threadID + `","turn-id":"` + turnID + `","cwd":"` + e.Workdir +
		`","client":"e2e","input-messages":["say hi"],"last-assistant-message":"Hello from the model"}`
	if len(args) != 2 || args[0] != "first-arg" || args[1] != want {
		t.Fatalf("arguments %q\nwant payload %s", args, want)
	}
}
