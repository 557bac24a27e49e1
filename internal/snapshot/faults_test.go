package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptJournal: a damaged journal is an error naming the file, never a panic or a
// silent fresh start.
func TestCorruptJournal(t *testing.T) {
	root, home := newTree(t, plainTree, baseFiles)
	th := mustOpen(t, home, "thread-j", root)
	turn(t, th, "t1", func() {})
	path := filepath.Join(home, "snapshots", "thread-j", "journal.json")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"garbage":     "{not json",
		"empty":       "",
		"version":     strings.Replace(string(good), `"version": 1`, `"version": 9`, 1),
		"store":       strings.Replace(string(good), `"store": "files"`, `"store": "tape"`, 1),
		"snapshot id": strings.Replace(string(good), `"before": "`, `"before": "../../`, 1),
		"root":        strings.Replace(string(good), `"root": "/`, `"root": "`, 1),
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(home, "thread-j", root)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Open = %v, want an error naming %s", name, err, path)
		}
	}
	if err := Prune(home, "thread-j"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Prune of a corrupt journal = %v, want an error naming it", err)
	}
	if exists(home, "snapshots/thread-j") {
		t.Error("Prune left the corrupt journal's directory")
	}
}

// TestCorruptManifest: a damaged manifest of the files store is an error naming it.
func TestCorruptManifest(t *testing.T) {
	root, home := newTree(t, plainTree, baseFiles)
	th := mustOpen(t, home, "thread-k", root)
	turn(t, th, "t1", func() { write(t, root, "a.txt", "changed\n", 0o644) })
	manifests, _ := filepath.Glob(filepath.Join(home, "snapshots", "thread-k", "files", "manifests", "*.gz"))
	if len(manifests) != 2 {
		t.Fatalf("manifests: %v", manifests)
	}
	if err := os.WriteFile(manifests[0], []byte("\x1f\x8bnot really gzip"), 0o600); err != nil {
		t.Fatal(err)
	}
	reopened := mustOpen(t, home, "thread-k", root)
	_, err := reopened.Plan(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), manifests[0]) {
		t.Errorf("Plan = %v, want an error naming %s", err, manifests[0])
	}
}

// TestPrivateFiles: the journal dir is 0700 and what it holds 0600.
func TestPrivateFiles(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			turn(t, mustOpen(t, home, "thread-f", root), "t1", func() { write(t, root, "x", "x", 0o644) })
			err := filepath.WalkDir(filepath.Join(home, "snapshots"), func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				info, err := d.Info()
				if err != nil {
					return err
				}
				want := fs.FileMode(0o600)
				if d.IsDir() {
					want = 0o700
				}
				if info.Mode().Perm() != want {
					t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUnendedTurn: a turn that never ended (the process stopped) is still rewindable, and
// the plan says that its changes could not be told from hand edits.
func TestUnendedTurn(t *testing.T) {
	root, home := newTree(t, plainTree, baseFiles)
	th := mustOpen(t, home, "thread-e", root)
	turn(t, th, "t1", func() { write(t, root, "a.txt", "t1\n", 0o644) })
	before := treeHash(t, root, true)
	if err := th.BeginTurn(context.Background(), "t2"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "b.txt", "t2, interrupted\n", 0o644)
	if err := th.EndTurn(context.Background(), "t1"); err == nil {
		t.Error("EndTurn of a turn that is not the last begun succeeded")
	}
	p, err := mustOpen(t, home, "thread-e", root).Rewind(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "t2 never ended") {
		t.Errorf("notes: %q", p.Notes)
	}
	if treeHash(t, root, true) != before {
		t.Error("the unended turn was not rewound")
	}
}

// TestSymlinkInTheWay: a directory the rewind must write into, replaced by hand with a
// symlink, refuses the rewind with nothing written through the link and nothing changed.
func TestSymlinkInTheWay(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			outside := t.TempDir()
			th := mustOpen(t, home, "thread-s", root)
			turn(t, th, "t1", func() {
				os.RemoveAll(filepath.Join(root, "sub"))
				write(t, root, "made.txt", "by t1\n", 0o644)
			})
			if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
				t.Fatal(err)
			}
			before := treeHash(t, root, true)
			_, err := th.Rewind(context.Background(), 1)
			if err == nil || !strings.Contains(err.Error(), "nothing changed") {
				t.Fatalf("Rewind = %v, want a refusal with nothing changed", err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("the rewind wrote outside the root: %v", entries)
			}
			if treeHash(t, root, true) != before {
				t.Error("a failed rewind left files changed")
			}
			if len(th.Turns()) != 1 {
				t.Error("a failed rewind dropped the turn")
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	for _, id := range []string{"", "../x", "a/b", ".hidden", "a b"} {
		if _, err := Open(home, id, root); err == nil {
			t.Errorf("Open accepted thread id %q", id)
		}
	}
	if _, err := Open(home, "ok", filepath.Join(root, "missing")); err == nil {
		t.Error("Open accepted a missing working directory")
	}
	th := mustOpen(t, home, "big", root)
	th.st.(*fileStore).maxFiles = 3
	for i := range 4 {
		write(t, root, string(rune('a'+i)), "x", 0o644)
	}
	if err := th.BeginTurn(context.Background(), "t1"); err == nil || !strings.Contains(err.Error(), "more than 3 files") {
		t.Errorf("BeginTurn on too many files = %v", err)
	}
	if _, err := th.Plan(context.Background(), 1); !errors.Is(err, ErrNotEnoughTurns) {
		t.Errorf("Plan with no turns = %v, want ErrNotEnoughTurns", err)
	}
}

// TestCodexHomeInsideRoot: a CODEX_HOME inside the tree (and the journal in it) is never
// part of a snapshot, so a rewind neither reports nor touches it.
func TestCodexHomeInsideRoot(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, _ := newTree(t, kind, baseFiles)
			home := filepath.Join(root, ".codex")
			th := mustOpen(t, home, "thread-in", root)
			turn(t, th, "t1", func() { write(t, root, "a.txt", "t1\n", 0o644) })
			turn(t, th, "t2", func() { write(t, root, "b.txt", "t2\n", 0o644) })
			p, err := th.Rewind(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.HandEdits) != 0 || len(p.Changes) != 2 {
				t.Errorf("changes %v, hand edits %v; want a.txt and b.txt only", p.Changes, p.HandEdits)
			}
			if !exists(home, "snapshots/thread-in/journal.json") {
				t.Error("the rewind removed its own journal")
			}
		})
	}
}

// TestAssumeUnchangedSeen: a file the user marked assume-unchanged (or skip-worktree) in
// their index is still snapshotted, and the user's marks stay.
func TestAssumeUnchangedSeen(t *testing.T) {
	root, home := newTree(t, gitTree, baseFiles)
	git(t, root, "update-index", "--assume-unchanged", "a.txt")
	git(t, root, "update-index", "--skip-worktree", "b.txt")
	th := mustOpen(t, home, "thread-au", root)
	turn(t, th, "t1", func() {
		write(t, root, "a.txt", "changed by the turn\n", 0o644)
		write(t, root, "b.txt", "changed by the turn\n", 0o644)
	})
	p, err := th.Rewind(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 2 || read(t, root, "a.txt") != baseFiles["a.txt"] || read(t, root, "b.txt") != baseFiles["b.txt"] {
		t.Errorf("changes %v; a.txt %q, b.txt %q", p.Changes, read(t, root, "a.txt"), read(t, root, "b.txt"))
	}
	if tags := git(t, root, "ls-files", "-v", "a.txt", "b.txt"); tags != "h a.txt\nS b.txt\n" {
		t.Errorf("the user's index marks changed: %q", tags)
	}
}

// TestIgnoredFilesOutOfScope pins the documented limit: git-ignored files are neither
// snapshotted nor touched by a rewind.
func TestIgnoredFilesOutOfScope(t *testing.T) {
	root, home := newTree(t, gitTree, map[string]string{".gitignore": "build/\n", "a.txt": "a\n"})
	th := mustOpen(t, home, "thread-ig", root)
	turn(t, th, "t1", func() {
		write(t, root, "build/out.bin", "artifact\n", 0o644)
		write(t, root, "a.txt", "t1\n", 0o644)
	})
	p, err := th.Rewind(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || !exists(root, "build/out.bin") {
		t.Errorf("changes %v; build/out.bin exists: %v", p.Changes, exists(root, "build/out.bin"))
	}
}

// TestCancelledSnapshot: a snapshot cut off by its context fails plainly, and the next one
// works (no stale lock on the private index is left in the way).
func TestCancelledSnapshot(t *testing.T) {
	root, home := newTree(t, gitTree, baseFiles)
	th := mustOpen(t, home, "thread-x", root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := th.BeginTurn(ctx, "t1"); err == nil {
		t.Error("BeginTurn with a cancelled context succeeded")
	}
	// As if git had been killed while it held the index.
	if err := os.WriteFile(filepath.Join(home, "snapshots", "thread-x", "index.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	turn(t, th, "t2", func() { write(t, root, "a.txt", "t2\n", 0o644) })
	if got := len(th.Turns()); got != 1 {
		t.Errorf("%d turns recorded, want 1", got)
	}
}
