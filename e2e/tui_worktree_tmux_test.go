package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUITmuxWorktree: `gocodex --worktree` starts the session in a new managed worktree
// ($CODEX_HOME/worktrees/<4 hex>/<repo>, at a detached HEAD), as `exec --worktree` does; the
// /status screen shows it as the working folder, the worktree records its thread, and the
// user's checkout is untouched. Resuming with --worktree is refused.
func TestTUITmuxWorktree(t *testing.T) {
	e := newEnv(t)
	commitOneFile(t, e.Workdir)
	u := e.startTmuxUI("--worktree", "-s", "workspace-write")
	u.waitFor("Ask gocodex to do anything")
	roots := worktreeRoots(t, e.CodexHome)
	if len(roots) != 1 {
		u.quit()
		t.Fatalf("worktrees: %v", roots)
	}
	var root string
	for r := range roots {
		root = r
	}
	u.typeLine("/status")
	u.waitFor("worktrees")
	u.quit()
	gitDir, err := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		t.Fatal(err)
	}
	var owner map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(strings.TrimSpace(string(gitDir)), "codex-thread.json"))), &owner); err != nil || owner["ownerThreadId"] == "" || owner["ownerThreadId"] == nil {
		t.Errorf("codex-thread.json: %v %v", owner, err)
	}
	if out, _ := exec.Command("git", "-C", e.Workdir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("the user's checkout changed:\n%s", out)
	}
	if r := e.run("", "resume", "--last", "--worktree"); r.Code != 1 || !strings.Contains(r.Stderr, "does not support --worktree when resuming") {
		t.Errorf("resume --worktree: %+v", r)
	}
}

// commitOneFile commits a.txt in the work tree, so it has a commit to make worktrees of.
func commitOneFile(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}
