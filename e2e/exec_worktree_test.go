package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// worktreePatch adds a file and changes a tracked one, in the session's folder (sub/).
const worktreePatch = "*** Begin Patch\n*** Add File: new.txt\n+made in the worktree\n*** Update File: s.txt\n@@\n-s\n+s changed\n*** End Patch\n"

// TestExecWorktree: `exec --worktree` started in a subfolder of a repository with uncommitted
// and untracked files runs in $CODEX_HOME/worktrees/<4 hex>/<repo name>/sub at a detached HEAD
// on the checkout's commit, without the uncommitted files; the patch lands there, the
// worktree is kept and owned by the thread (codex-thread.json), and the user's checkout is
// untouched. GOCODEX_REFERENCE_CODEX_171 runs Codex 0.171 on the same repository and checks
// the same effects.
func TestExecWorktree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	repo := e.Workdir
	gitIn := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "a.txt"), "a\n")
	write(filepath.Join(repo, "sub", "s.txt"), "s\n")
	gitIn(repo, "add", ".")
	gitIn(repo, "commit", "-qm", "init")
	write(filepath.Join(repo, "a.txt"), "a\nuncommitted\n")
	write(filepath.Join(repo, "u.txt"), "untracked\n")
	head := gitIn(repo, "rev-parse", "HEAD")
	status := gitIn(repo, "status", "--porcelain")

	check := func(who, bin string) {
		t.Helper()
		before := worktreeRoots(t, e.CodexHome)
		e.Model.Enqueue(tk.SSE(tk.Created(), tk.CustomToolCall("call_p", "apply_patch", worktreePatch), tk.Completed(tk.Usage{})), answer("done"))
		e.Workdir = filepath.Join(repo, "sub")
		r := e.runBin(bin, "", "exec", "--json", "--worktree", "-s", "workspace-write", "edit")
		e.Workdir = repo
		if r.Code != 0 {
			t.Fatalf("%s exec --worktree: exit %d\n%s", who, r.Code, r.Stderr)
		}
		var started struct {
			ThreadID string `json:"thread_id"`
		}
		_ = json.Unmarshal([]byte(strings.SplitN(r.Stdout, "\n", 2)[0]), &started)
		var root string
		for p := range worktreeRoots(t, e.CodexHome) {
			if !before[p] {
				root = p
			}
		}
		if root == "" || filepath.Base(root) != filepath.Base(repo) || len(filepath.Base(filepath.Dir(root))) != 4 {
			t.Fatalf("%s: no new worktree at $CODEX_HOME/worktrees/<4 hex>/%s: %v", who, filepath.Base(repo), worktreeRoots(t, e.CodexHome))
		}
		if got := readFile(t, filepath.Join(root, "sub", "new.txt")); got != "made in the worktree\n" {
			t.Errorf("%s: the patch's new file in the worktree: %q", who, got)
		}
		if got := readFile(t, filepath.Join(root, "sub", "s.txt")); got != "s changed\n" {
			t.Errorf("%s: the patched file in the worktree: %q", who, got)
		}
		if got := readFile(t, filepath.Join(root, "a.txt")); got != "a\n" {
			t.Errorf("%s: the worktree carries the checkout's uncommitted change: %q", who, got)
		}
		if _, err := os.Stat(filepath.Join(root, "u.txt")); err == nil {
			t.Errorf("%s: the worktree carries the checkout's untracked file", who)
		}
		if got := gitIn(root, "rev-parse", "HEAD"); got != head {
			t.Errorf("%s: the worktree is at %s, want the checkout's %s", who, got, head)
		}
		list := gitIn(repo, "worktree", "list")
		if !strings.Contains(list, root) || !strings.Contains(list, "(detached HEAD)") {
			t.Errorf("%s: git worktree list:\n%s", who, list)
		}
		gitDir := strings.TrimSpace(gitIn(root, "rev-parse", "--absolute-git-dir"))
		var owner struct {
			Version       int    `json:"version"`
			OwnerThreadID string `json:"ownerThreadId"`
		}
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(gitDir, "codex-thread.json"))), &owner); err != nil || owner.Version != 1 || owner.OwnerThreadID != started.ThreadID || started.ThreadID == "" {
			t.Errorf("%s: codex-thread.json = %+v (%v), thread %q", who, owner, err, started.ThreadID)
		}
		// The user's checkout: same commit, same changes, nothing of the session.
		if got := gitIn(repo, "status", "--porcelain"); got != status {
			t.Errorf("%s: the checkout's status changed:\n%s\nwas\n%s", who, got, status)
		}
		if _, err := os.Stat(filepath.Join(repo, "sub", "new.txt")); err == nil {
			t.Errorf("%s: the patch landed in the user's checkout", who)
		}
		if got := readFile(t, filepath.Join(repo, "a.txt")); got != "a\nuncommitted\n" {
			t.Errorf("%s: the checkout's uncommitted file changed: %q", who, got)
		}
	}
	check("gocodex", binary)
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171"); ref != "" {
		check("codex 0.171", ref)
	}

	// Outside a repository: Codex's refusal, nothing created.
	e.Workdir = t.TempDir()
	before := len(worktreeRoots(t, e.CodexHome))
	if r := e.run("", "exec", "--worktree", "--skip-git-repo-check", "hi"); r.Code != 1 || !strings.Contains(r.Stderr, "git command failed: fatal: not a git repository") {
		t.Errorf("exec --worktree outside a repository: exit %d, %q", r.Code, r.Stderr)
	}
	if after := len(worktreeRoots(t, e.CodexHome)); after != before {
		t.Errorf("a refused --worktree left %d worktrees, was %d", after, before)
	}
}

// worktreeRoots are the managed worktrees under CODEX_HOME: worktrees/<slot>/<name>.
func worktreeRoots(t *testing.T, home string) map[string]bool {
	t.Helper()
	found := map[string]bool{}
	matches, _ := filepath.Glob(filepath.Join(home, "worktrees", "*", "*"))
	for _, m := range matches {
		found[m] = true
	}
	return found
}
