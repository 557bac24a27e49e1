package worktree

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// A hostile repository's smudge filter and post-checkout hook do not run when the managed
// worktree is checked out (safegit), and the worktree holds the committed bytes.
func TestCreateRunsNoRepositoryProgram(t *testing.T) {
	repo, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	git(t, repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("*.txt filter=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "sub", "a.txt"), []byte("committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "init")
	git(t, repo, "config", "filter.evil.smudge", "touch "+marker+"; cat")
	git(t, repo, "config", "filter.evil.required", "true")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	m, err := Create(context.Background(), home, filepath.Join(repo, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a program the repository names ran during the checkout")
	}
	if got, _ := os.ReadFile(filepath.Join(m.Cwd, "a.txt")); string(got) != "committed\n" {
		t.Errorf("a.txt in the worktree = %q", got)
	}
	if rel, _ := filepath.Rel(home, m.Root); !strings.HasPrefix(rel, "worktrees"+string(filepath.Separator)) || filepath.Base(m.Root) != filepath.Base(repo) {
		t.Errorf("worktree at %s", m.Root)
	}
	if err := m.RecordOwner("thread-1"); err != nil {
		t.Fatal(err)
	}
	var owner map[string]any
	b, _ := os.ReadFile(filepath.Join(m.GitDir, OwnerFile))
	if err := json.Unmarshal(b, &owner); err != nil || owner["ownerThreadId"] != "thread-1" || owner["version"] != float64(1) {
		t.Errorf("owner record %s", b)
	}
}

// Outside a repository: git's own words after Codex's prefix, and nothing made.
func TestCreateOutsideARepository(t *testing.T) {
	home := t.TempDir()
	_, err := Create(context.Background(), home, t.TempDir())
	if err == nil || !strings.HasPrefix(err.Error(), "git command failed: fatal: not a git repository") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "worktrees")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(home, "worktrees"))
		if len(entries) != 0 {
			t.Errorf("left %d slots", len(entries))
		}
	}
}
