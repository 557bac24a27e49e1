package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIExecFork: `gocodex exec fork ID PROMPT` runs the prompt in a new thread that starts
// from a copy of the saved one (the model sees the earlier turn); the original is unchanged.
func TestCLIExecFork(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("ORIGINALANSWER"), answer("FORKANSWER"))
	r := e.run("", "exec", "--json", "ORIGINALQUESTION")
	if r.Code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	id, _ := jsonl(t, r.Stdout)[0]["thread_id"].(string)
	original := rolloutFiles(t, e.CodexHome)[0]
	before, _ := os.ReadFile(filepath.Join(e.CodexHome, original))

	r = e.run("", "exec", "fork", "--json", id, "FORKQUESTION")
	if r.Code != 0 {
		t.Fatalf("exec fork: %+v", r)
	}
	if forkID, _ := jsonl(t, r.Stdout)[0]["thread_id"].(string); forkID == id || forkID == "" {
		t.Errorf("the fork kept the id %s", forkID)
	}
	if !strings.Contains(r.Stdout, "FORKANSWER") {
		t.Errorf("exec fork output: %s", r.Stdout)
	}
	reqs := e.Model.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "ORIGINALQUESTION") || !strings.Contains(body, "ORIGINALANSWER") {
		t.Errorf("the forked turn did not carry the earlier conversation")
	}
	after, _ := os.ReadFile(filepath.Join(e.CodexHome, original))
	if string(before) != string(after) {
		t.Errorf("exec fork changed the original rollout")
	}
	if n := len(rolloutFiles(t, e.CodexHome)); n != 2 {
		t.Errorf("%d rollouts, want 2", n)
	}
	if r := e.run("", "exec", "fork", "nosuch", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, `no saved session found with id or name "nosuch"`) {
		t.Errorf("exec fork nosuch: %+v", r)
	}
	// (--worktree is honoured: TestExecWorktree.)
	if r := e.run("", "exec", "--approve-for-me", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, "gocodex does not support --approve-for-me") {
		t.Errorf("exec --approve-for-me: %+v", r)
	}
}

// TestCLISandboxCodexForm: `gocodex sandbox [-c …] -- COMMAND` runs the command under the
// configured policy, read-only when none is chosen, as `codex sandbox` does.
func TestCLISandboxCodexForm(t *testing.T) {
	e := newEnv(t)
	// The test config is danger-full-access; without it the policy is read-only.
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"gpt-5.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "sandbox", "--", "sh", "-c", "echo inside; touch ro-marker")
	if r.Code == 0 || !strings.Contains(r.Stdout, "inside") {
		t.Errorf("read-only sandbox: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(e.Workdir, "ro-marker")); err == nil {
		t.Errorf("the read-only sandbox let the command write")
	}
	r = e.run("", "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", "sh", "-c", "touch rw-marker")
	if _, err := os.Stat(filepath.Join(e.Workdir, "rw-marker")); r.Code != 0 || err != nil {
		t.Errorf("workspace-write sandbox: %+v, marker: %v", r, err)
	}
	if r := e.run("", "sandbox", "-P", "profile", "--", "true"); r.Code != 1 || !strings.Contains(r.Stderr, "does not support permission profiles") {
		t.Errorf("sandbox -P: %+v", r)
	}
}

// TestCLIResumeByNameOnCodexThreads: threads Codex 0.169 wrote and named open by name:
// `exec resume NAME` finds any thread (the exec one here), `gocodex resume NAME` the
// interactive ones, and the earlier conversation comes along.
func TestCLIResumeByNameOnCodexThreads(t *testing.T) {
	e := newEnv(t)
	copyTree(t, "testdata/cli_sessions/codex_home", e.CodexHome)
	e.Model.Enqueue(answer("EXECRESUMED"), answer("UIRESUMED"))
	r := e.run("", "exec", "--json", "resume", "execname", "continue please")
	if r.Code != 0 || jsonl(t, r.Stdout)[0]["thread_id"] != codexExecThread || !strings.Contains(r.Stdout, "EXECRESUMED") {
		t.Fatalf("exec resume execname: %+v", r)
	}
	if body := string(e.Model.Requests()[0].Body); !strings.Contains(body, "hello there") {
		t.Errorf("exec resume by name did not carry the Codex thread's first message")
	}
	if r := e.run("", "exec", "resume", "no such name", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, `no saved session found with id or name "no such name"`) {
		t.Errorf("exec resume of an unknown name: %+v", r)
	}

	s := e.startTUI("resume", "my fix")
	pos := s.screen.waitFor(t, "fix things", 0)
	s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("and more\r")
	s.quit(s.screen.waitFor(t, "UIRESUMED", pos))
	if body := string(e.Model.Requests()[1].Body); !strings.Contains(body, "fix things") {
		t.Errorf("resume by name did not carry the Codex thread's conversation")
	}
}
