package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// /worktree continues the conversation in a new managed worktree (its next request carries
// the history, /status shows the worktree, which records the thread as its owner) or starts
// a new one in another; the user's checkout is untouched.
func TestTUITmuxWorktreeCommand(t *testing.T) {
	e := newEnv(t)
	commitOneFile(t, e.Workdir)
	e.Model.Enqueue(answer("FIRSTANSWER"), answer("INWORKTREE"))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("remember APPLE")
	u.waitFor("FIRSTANSWER")
	waitIdle(u)
	u.typeLine("/worktree")
	u.waitFor("Worktrees", "1. Continue current conversation", "2. Start new conversation")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Now in the worktree " + filepath.Join(e.CodexHome, "worktrees"))
	roots := worktreeRoots(t, e.CodexHome)
	if len(roots) != 1 {
		t.Fatalf("worktrees: %v", roots)
	}
	u.typeLine("and now?")
	u.waitFor("INWORKTREE")
	waitIdle(u)
	u.typeLine("/worktree")
	u.waitFor("2. Start new conversation")
	u.pane.sendKeys(false, "2")
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(u.screen(), "Now in the worktree") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no second worktree session:\n%s", u.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.quit()
	if got := len(worktreeRoots(t, e.CodexHome)); got != 2 {
		t.Errorf("%d worktrees, want 2", got)
	}
	reqs := e.Model.Requests()
	if last := strings.Join(reqs[len(reqs)-1].MessageTexts("user"), "\n"); !strings.Contains(last, "remember APPLE") {
		t.Errorf("the worktree's request lacks the history: %q", last)
	}
	for root := range roots {
		gitDir, err := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir").Output()
		if err != nil {
			t.Fatal(err)
		}
		var owner map[string]any
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(strings.TrimSpace(string(gitDir)), "codex-thread.json"))), &owner); err != nil || owner["ownerThreadId"] == nil {
			t.Errorf("codex-thread.json: %v %v", owner, err)
		}
	}
	if out, _ := exec.Command("git", "-C", e.Workdir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("the user's checkout changed:\n%s", out)
	}
}
