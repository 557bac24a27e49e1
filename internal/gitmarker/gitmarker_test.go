package gitmarker

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExists(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, dir bool) {
		p := filepath.Join(root, rel)
		if dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("repo/.git/HEAD", false)
	mk("placeholder/.git", true)
	mk("worktree/.git", false)
	mk("other/.hg", true)
	for _, tc := range []struct {
		dir, marker string
		want        bool
	}{
		{"repo", ".git", true},
		{"placeholder", ".git", false}, // an empty .git, as the sandbox's placeholder
		{"worktree", ".git", true},
		{"other", ".hg", true},
		{"other", ".git", false},
	} {
		for _, stat := range []StatFunc{os.Stat, os.Lstat} {
			if got := Exists(stat, filepath.Join(root, tc.dir), tc.marker); got != tc.want {
				t.Errorf("Exists(%s, %s) = %v, want %v", tc.dir, tc.marker, got, tc.want)
			}
		}
	}
}
