package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
)

// The Codex-written CODEX_HOME in testdata/cli_sessions/codex_home: two threads Codex 0.169
// recorded, an exec one (named "execname", earlier "my fix") and an app-server one named
// "my fix"; session_index.jsonl is Codex's own.
const (
	codexExecThread = "01a21eaa-c7df-7b72-b2b5-f8665158c6ff"
	codexUIThread   = "01a21eab-64ee-7f20-8385-de5e08c9c811"
)

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rolloutFiles lists the rollouts of CODEX_HOME, relative to it.
func rolloutFiles(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasPrefix(info.Name(), "rollout-") {
			rel, _ := filepath.Rel(home, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// sessionStep is one command and what Codex 0.169 answers to it on the same CODEX_HOME.
type sessionStep struct {
	args     []string
	code     int
	stdout   string
	stderr   string // the first line of stderr
	rollouts []string
}

// sessionSteps are archive, unarchive and delete steps on a CODEX_HOME with an exec thread
// named "execname" (earlier "my fix") and an interactive thread named "my fix", and what
// Codex 0.169 answers to each (TestCLISessionCommandsMatchReference runs them through it).
func sessionSteps(execID, uiID string) []sessionStep {
	return []sessionStep{
		{args: []string{"archive", "my fix"}, stdout: "Archived session my fix (" + uiID + ").\n",
			rollouts: []string{"archived_sessions/" + uiID, "sessions/" + execID}},
		{args: []string{"archive", "my fix"}, code: 1, stderr: "Error: No active session found matching 'my fix'."},
		{args: []string{"unarchive", "my fix"}, stdout: "Unarchived session my fix (" + uiID + ").\n"},
		// A name finds only interactive sessions: the exec thread is not found by its name.
		{args: []string{"archive", "execname"}, code: 1, stderr: "Error: No active session found matching 'execname'."},
		{args: []string{"archive", execID}, stdout: "Archived session " + execID + ".\n",
			rollouts: []string{"archived_sessions/" + execID, "sessions/" + uiID}},
		{args: []string{"archive", execID}, code: 1, stderr: "Error: failed to archive session"},
		{args: []string{"unarchive", strings.ToUpper(execID)}, stdout: "Unarchived session execname (" + execID + ").\n"},
		{args: []string{"unarchive", execID}, code: 1, stderr: "Error: failed to unarchive session"},
		{args: []string{"archive", otherID(execID)}, code: 1, stderr: "Error: failed to archive session"},
		{args: []string{"delete", "my fix"}, code: 1, stderr: "Error: cannot confirm session deletion without an interactive terminal; rerun with --force and a session UUID"},
		{args: []string{"delete", "--force", "my fix"}, code: 1, stderr: "Error: --force requires a session UUID; names must be confirmed interactively"},
		{args: []string{"delete", "--force", "nosuch"}, code: 1, stderr: "Error: --force requires a session UUID; names must be confirmed interactively"},
		{args: []string{"delete", "nosuch"}, code: 1, stderr: "Error: No active or archived session found matching 'nosuch'."},
		{args: []string{"delete", "--force", uiID}, stdout: "Deleted session " + uiID + ".\n",
			rollouts: []string{"sessions/" + execID}},
		{args: []string{"delete", "--force", uiID}, code: 1, stderr: "Error: failed to delete session"},
	}
}

// runSessionSteps runs the steps with bin in e and checks each answer and the rollouts after it.
func runSessionSteps(t *testing.T, e *env, bin string, steps []sessionStep, deletedID string) {
	t.Helper()
	for _, st := range steps {
		r := e.runBin(bin, "", st.args...)
		first := firstErrorLine(r.Stderr)
		if r.Code != st.code || r.Stdout != st.stdout || !strings.HasPrefix(first, st.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr starting %q",
				st.args, r.Code, r.Stdout, r.Stderr, st.code, st.stdout, st.stderr)
		}
		if st.rollouts != nil {
			if diff := cmp.Diff(st.rollouts, shortRollouts(rolloutFiles(t, e.CodexHome))); diff != "" {
				t.Errorf("%v: rollouts differ (-want +got):\n%s", st.args, diff)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(e.CodexHome, "session_index.jsonl")); err != nil || strings.Contains(string(data), deletedID) {
		t.Errorf("session_index.jsonl still names the deleted thread (or is gone: %v):\n%s", err, data)
	}
}

// firstErrorLine is the first line of stderr that is not a warning (Codex warns first when
// CODEX_HOME is under /tmp).
func firstErrorLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "WARNING:") {
			return l
		}
	}
	return ""
}

// shortRollouts names rollouts by top folder and thread id ("sessions/<id>"), dates aside.
func shortRollouts(files []string) []string {
	var out []string
	for _, f := range files {
		top, _, _ := strings.Cut(f, "/")
		out = append(out, top+"/"+f[len(f)-len(codexUIThread)-len(".jsonl"):len(f)-len(".jsonl")])
	}
	return out
}

// TestCLISessionCommandsOnCodexHome runs archive, unarchive and delete on threads Codex 0.169
// wrote and checks the messages, exit statuses and files Codex produces for the same steps.
func TestCLISessionCommandsOnCodexHome(t *testing.T) {
	e := newEnv(t)
	copyTree(t, "testdata/cli_sessions/codex_home", e.CodexHome)
	runSessionSteps(t, e, binary, sessionSteps(codexExecThread, codexUIThread), codexUIThread)
}

// TestCLISessionCommandsMatchReference has the reference binary write a CODEX_HOME as the
// fixture's was made (an exec thread, an app-server thread, both renamed), then runs the
// steps through the reference and through gocodex, each on its own copy: both must give
// the recorded answers.
func TestCLISessionCommandsMatchReference(t *testing.T) {
	ref := referenceBinary(t)
	e := newEnv(t)
	e.Model.SetDefault(answer("ok"))
	r := e.runBin(ref, "", "exec", "--json", "--skip-git-repo-check", "hello there")
	if r.Code != 0 {
		t.Fatalf("reference exec: %+v", r)
	}
	execID, _ := jsonl(t, r.Stdout)[0]["thread_id"].(string)
	saved := binary
	binary = ref
	as := e.startRawAppServer()
	binary = saved
	as.initialize()
	as.send(`{"id":1,"method":"thread/start","params":{}}`)
	uiID := as.response(1)["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	as.send(`{"id":2,"method":"turn/start","params":{"threadId":"` + uiID + `","input":[{"type":"text","text":"fix things"}]}}`)
	for m := as.next(); m["method"] != "turn/completed"; m = as.next() {
	}
	for i, rename := range [][2]string{{execID, "my fix"}, {uiID, "my fix"}, {execID, "execname"}} {
		if rename[0] == execID {
			as.send(fmt.Sprintf(`{"id":%d,"method":"thread/resume","params":{"threadId":%q}}`, 10+i, execID))
			as.response(10 + i)
		}
		as.send(fmt.Sprintf(`{"id":%d,"method":"thread/name/set","params":{"threadId":%q,"name":%q}}`, 20+i, rename[0], rename[1]))
		if res := as.response(20 + i); res["error"] != nil {
			t.Fatalf("reference thread/name/set: %v", res)
		}
	}
	as.stdin.Close()
	for range as.lines { // until the reference exits and its output closes
	}
	// Codex writes rollouts from its own tasks: wait until both are on disk, whole, before
	// the steps (and the copy for gocodex) look at them.
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := strings.Join(rolloutFiles(t, e.CodexHome), " ")
		if strings.Contains(got, execID) && strings.Contains(got, uiID) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference's rollouts never appeared: %s", got)
		}
		time.Sleep(50 * time.Millisecond)
	}

	theirs := e
	ours := newEnv(t)
	copyTree(t, theirs.CodexHome, ours.CodexHome)
	testkit.WriteConfig(t, ours.CodexHome, ours.Model.URL())
	t.Run("reference", func(t *testing.T) { runSessionSteps(t, theirs, ref, sessionSteps(execID, uiID), uiID) })
	t.Run("gocodex", func(t *testing.T) { runSessionSteps(t, ours, binary, sessionSteps(execID, uiID), uiID) })
}

// TestCLISessionCommandsOnGocodexThreads archives, unarchives and deletes threads gocodex
// wrote: an exec thread by id, and a terminal UI thread by the name session_index.jsonl gives it.
func TestCLISessionCommandsOnGocodexThreads(t *testing.T) {
	e := newEnv(t)
	e.Model.SetDefault(answer("ok"))
	r := e.run("", "exec", "--json", "first thread")
	if r.Code != 0 {
		t.Fatalf("exec: %d %s", r.Code, r.Stderr)
	}
	execID, _ := jsonl(t, r.Stdout)[0]["thread_id"].(string)

	if r := e.run("", "archive", execID); r.Code != 0 || r.Stdout != "Archived session "+execID+".\n" {
		t.Fatalf("archive: %+v", r)
	}
	if got := rolloutFiles(t, e.CodexHome); len(got) != 1 || !strings.HasPrefix(got[0], "archived_sessions/") {
		t.Fatalf("after archive: %v", got)
	}
	if r := e.run("", "unarchive", execID); r.Code != 0 || r.Stdout != "Unarchived session "+execID+".\n" {
		t.Fatalf("unarchive: %+v", r)
	}
	if got := rolloutFiles(t, e.CodexHome); len(got) != 1 || !strings.HasPrefix(got[0], "sessions/") {
		t.Fatalf("after unarchive: %v", got)
	}

	// A terminal UI thread, named as Codex names threads (a line in session_index.jsonl).
	tui := e.startTUI("hello from the terminal")
	pos := tui.screen.waitFor(t, "ok", 0)
	tui.quit(pos)
	var uiID string
	for _, f := range rolloutFiles(t, e.CodexHome) {
		if id := f[len(f)-len(execID)-len(".jsonl") : len(f)-len(".jsonl")]; id != execID {
			uiID = id
		}
	}
	if uiID == "" {
		t.Fatalf("the terminal UI left no rollout: %v", rolloutFiles(t, e.CodexHome))
	}
	index := `{"id":"` + execID + `","thread_name":"mine","updated_at":"2026-11-27T20:20:57.470029133Z"}` + "\n" +
		`{"id":"` + uiID + `","thread_name":"mine","updated_at":"2026-11-27T20:21:57.470029133Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(e.CodexHome, "session_index.jsonl"), []byte(index), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "archive", "mine"); r.Code != 0 || r.Stdout != "Archived session mine ("+uiID+").\n" {
		t.Fatalf("archive by name: %+v", r)
	}
	// The other "mine" is an exec thread: names find interactive sessions only.
	if r := e.run("", "archive", "mine"); r.Code != 1 || !strings.Contains(r.Stderr, "No active session found matching 'mine'.") {
		t.Errorf("second archive by name: %+v", r)
	}

	// delete asks at the terminal; "n" keeps the thread, "y" deletes it.
	del := e.startTUI("delete", "mine")
	del.screen.waitFor(t, "Permanently delete session 'mine' ("+uiID+")? This cannot be undone. Continue? [y/N]:", 0)
	del.typeKeys("n\r")
	del.screen.waitFor(t, "Delete cancelled.", 0)
	if err := <-del.exited; err != nil {
		t.Fatalf("delete answered n: %v", err)
	}
	if len(rolloutFiles(t, e.CodexHome)) != 2 {
		t.Fatalf("n deleted something: %v", rolloutFiles(t, e.CodexHome))
	}
	// Ctrl-C at the question cancels (130) and deletes nothing.
	del = e.startTUI("delete", "mine")
	del.screen.waitFor(t, "Continue? [y/N]:", 0)
	del.typeKeys("\x03")
	del.screen.waitFor(t, "Delete cancelled.", 0)
	if err := <-del.exited; err == nil || !strings.Contains(err.Error(), "exit status 130") {
		t.Fatalf("delete interrupted: %v", err)
	}
	if len(rolloutFiles(t, e.CodexHome)) != 2 {
		t.Fatalf("Ctrl-C deleted something: %v", rolloutFiles(t, e.CodexHome))
	}
	del = e.startTUI("delete", "mine")
	del.screen.waitFor(t, "Continue? [y/N]:", 0)
	del.typeKeys("y\r")
	del.screen.waitFor(t, "Deleted session mine ("+uiID+").", 0)
	if err := <-del.exited; err != nil {
		t.Fatalf("delete answered y: %v", err)
	}
	if got := rolloutFiles(t, e.CodexHome); len(got) != 1 || !strings.HasSuffix(got[0], execID+".jsonl") {
		t.Fatalf("after delete: %v", got)
	}
	data, _ := os.ReadFile(filepath.Join(e.CodexHome, "session_index.jsonl"))
	if strings.Contains(string(data), uiID) || !strings.Contains(string(data), execID) {
		t.Errorf("session_index.jsonl after delete:\n%s", data)
	}
	if r := e.run("", "delete", "--force", execID); r.Code != 0 || r.Stdout != "Deleted session "+execID+".\n" {
		t.Fatalf("delete --force: %+v", r)
	}
	if got := rolloutFiles(t, e.CodexHome); len(got) != 0 {
		t.Errorf("after delete --force: %v", got)
	}
}

// otherID is id with its last digit changed: an id no session has (one that ended in the
// digit it was changed to would name the session itself).
func otherID(id string) string {
	last := "0"
	if strings.HasSuffix(id, "0") {
		last = "1"
	}
	return id[:len(id)-1] + last
}
