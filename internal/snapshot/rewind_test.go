package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var baseFiles = map[string]string{
	"a.txt":      "alpha\n",
	"b.txt":      "bravo\n",
	"run.sh":     "#!/bin/sh\necho run\n",
	"doomed.txt": "to be deleted\n",
	"sub/e.txt":  "echo\n",
	"keep.txt":   "untouched\n",
}

// threeTurns records three turns that create, edit, chmod and delete files; it returns the
// tree's hash before turn 2.
func threeTurns(t *testing.T, th *Thread, root string, exact bool) string {
	t.Helper()
	turn(t, th, "turn-1", func() {
		write(t, root, "a.txt", "alpha, edited by turn 1\n", 0o644)
		if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
	})
	before2 := treeHash(t, root, exact)
	turn(t, th, "turn-2", func() {
		write(t, root, "new/x.txt", "created by turn 2\n", 0o644)
		write(t, root, "dir with space/ü\n.txt", "odd name\n", 0o644)
		write(t, root, "b.txt", "bravo, edited by turn 2\n", 0o644)
		if err := os.Chmod(filepath.Join(root, "run.sh"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(root, "link"))
		if err := os.Symlink("b.txt", filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
	})
	turn(t, th, "turn-3", func() {
		os.Remove(filepath.Join(root, "doomed.txt"))
		os.RemoveAll(filepath.Join(root, "sub"))
		write(t, root, "new/x.txt", "edited by turn 3\n", 0o644)
		write(t, root, "tool.sh", "#!/bin/sh\n", 0o755)
		write(t, root, "b.txt", "bravo, edited by turn 2 and 3\r\n\x00binary", 0o600)
	})
	return before2
}

func kinds() []treeKind { return []treeKind{gitTree, plainTree} }

// TestRewindRestoresTree is the acceptance: after three turns that create, edit and delete
// files, rewinding two restores the exact bytes and modes of the tree before turn 2.
func TestRewindRestoresTree(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			exact := kind == plainTree
			if kind == gitTree {
				// The caller's git environment must not redirect the snapshots.
				t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "elsewhere"))
				t.Setenv("GIT_INDEX_FILE", filepath.Join(t.TempDir(), "foreign-index"))
			}
			th := mustOpen(t, home, "thread-1", filepath.Join(root))
			before2 := threeTurns(t, th, root, exact)

			dry, err := th.Plan(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			want := []Change{
				{"b.txt", Modify}, {"dir with space/ü\n.txt", Delete}, {"doomed.txt", Create}, {"link", Modify}, {"new/x.txt", Delete},
				{"run.sh", Mode}, {"sub/e.txt", Create}, {"tool.sh", Delete},
			}
			if diff := cmp.Diff(want, dry.Changes); diff != "" {
				t.Errorf("dry run changes (-want +got):\n%s", diff)
			}
			if len(dry.HandEdits)+len(dry.Conflicts) != 0 {
				t.Errorf("dry run: hand edits %v, conflicts %v; want none", dry.HandEdits, dry.Conflicts)
			}
			if exists(root, "doomed.txt") || !exists(root, "new/x.txt") {
				t.Fatal("the dry run changed files")
			}

			p, err := th.Rewind(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, p.Changes); diff != "" {
				t.Errorf("rewind changes (-want +got):\n%s", diff)
			}
			if got := treeHash(t, root, exact); got != before2 {
				t.Errorf("tree after rewinding 2 of 3 turns differs from the tree before turn 2")
			}
			if exists(root, "new") {
				t.Error("the directory turn 2 created is still there")
			}
			if fi, err := os.Stat(filepath.Join(root, "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
				t.Errorf("run.sh lost its executable bit: %v %v", fi.Mode(), err)
			}
			if got := read(t, root, "link"); got != "alpha, edited by turn 1\n" {
				t.Errorf("link reads %q", got)
			}
			if turns := th.Turns(); len(turns) != 1 || turns[0].TurnID != "turn-1" {
				t.Errorf("journal keeps %+v, want turn-1 only", turns)
			}
			if kind == gitTree {
				if err := os.Remove(os.Getenv("GIT_INDEX_FILE")); !errors.Is(err, os.ErrNotExist) {
					t.Error("the caller's GIT_INDEX_FILE was written")
				}
				if refs := git(t, root, "for-each-ref", "--format=%(refname)", "refs/gocodex"); refs != "refs/gocodex/snapshots/thread-1/0/after\nrefs/gocodex/snapshots/thread-1/0/before\n" {
					t.Errorf("refs after the rewind:\n%s", refs)
				}
			}

			// The thread goes on: a new turn after the rewind is recorded and rewindable.
			turn(t, th, "turn-2b", func() { write(t, root, "z.txt", "z\n", 0o644) })
			if _, err := th.Rewind(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if got := treeHash(t, root, exact); got != before2 {
				t.Error("rewinding the turn after a rewind did not restore the tree")
			}
		})
	}
}

// TestUserGitStateUntouched: the user's status, index, HEAD and branches are the same before
// and after each operation (a rewind puts back the status the user had before the turns).
func TestUserGitStateUntouched(t *testing.T) {
	root, home := newTree(t, gitTree, baseFiles)
	write(t, root, "staged.txt", "staged\n", 0o644)
	git(t, root, "add", "staged.txt")
	write(t, root, "a.txt", "unstaged edit\n", 0o644)
	ctx := context.Background()
	th := mustOpen(t, home, "thread-u", root)
	state := userGitState(t, root)
	if err := th.BeginTurn(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if got := userGitState(t, root); got != state {
		t.Fatalf("BeginTurn changed the user's git state:\nbefore:\n%s\nafter:\n%s", state, got)
	}
	write(t, root, "made.txt", "by the turn\n", 0o644)
	os.Remove(filepath.Join(root, "b.txt"))
	during := userGitState(t, root)
	if err := th.EndTurn(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if got := userGitState(t, root); got != during {
		t.Fatalf("EndTurn changed the user's git state:\nbefore:\n%s\nafter:\n%s", during, got)
	}
	if _, err := th.Rewind(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := userGitState(t, root); got != state {
		t.Fatalf("after the rewind the user's git state is not what it was before the turn:\nbefore:\n%s\nafter:\n%s", state, got)
	}
	if branches := git(t, root, "branch", "--all"); branches != "* main\n" {
		t.Errorf("branches: %q", branches)
	}
}

// TestHandEditKept: hand edits to files the rewound turns did not touch, made between the
// turns or after them, are reported and kept.
func TestHandEditKept(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-h", root)
			turn(t, th, "turn-1", func() { write(t, root, "a.txt", "turn 1\n", 0o644) })
			turn(t, th, "turn-2", func() { write(t, root, "b.txt", "turn 2\n", 0o644) })
			write(t, root, "keep.txt", "hand edit between the turns\n", 0o644)
			turn(t, th, "turn-3", func() { write(t, root, "c.txt", "turn 3\n", 0o644) })
			write(t, root, "a.txt", "hand edit after the turns\n", 0o644) // turn 1 is not rewound
			write(t, root, "notes.txt", "a new file by hand\n", 0o644)

			p, err := th.Rewind(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"a.txt", "keep.txt", "notes.txt"}, p.HandEdits); diff != "" {
				t.Errorf("hand edits (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]Change{{"b.txt", Modify}, {"c.txt", Delete}}, p.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			for rel, want := range map[string]string{
				"a.txt": "hand edit after the turns\n", "keep.txt": "hand edit between the turns\n",
				"notes.txt": "a new file by hand\n", "b.txt": "bravo\n",
			} {
				if got := read(t, root, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

// TestConflictRefused: a file the rewind would restore, edited by hand since, refuses the
// rewind and leaves every file as it was.
func TestConflictRefused(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-c", root)
			exact := kind == plainTree
			threeTurns(t, th, root, exact)
			write(t, root, "new/x.txt", "the user's work on the turn's file\n", 0o644)
			before := treeHash(t, root, exact)
			p, err := th.Rewind(context.Background(), 2)
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("Rewind: %v, want ErrConflict", err)
			}
			if diff := cmp.Diff([]string{"new/x.txt"}, p.Conflicts); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
			if treeHash(t, root, exact) != before {
				t.Error("a refused rewind changed files")
			}
			if len(th.Turns()) != 3 {
				t.Error("a refused rewind dropped turns")
			}
			// Rewinding only the turn that did not touch the hand-edited file... turn 3 did,
			// so one turn conflicts too; the dry run says so without an error.
			dry, err := th.Plan(context.Background(), 1)
			if err != nil || len(dry.Conflicts) != 1 {
				t.Errorf("Plan(1) = %+v, %v; want one conflict", dry, err)
			}
		})
	}
}

func TestTooManyTurnsRefused(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-n", root)
			threeTurns(t, th, root, true)
			before := treeHash(t, root, true)
			for _, n := range []int{4, 0, -1} {
				if _, err := th.Rewind(context.Background(), n); err == nil {
					t.Errorf("Rewind(%d) succeeded", n)
				}
			}
			if _, err := th.Rewind(context.Background(), 4); !errors.Is(err, ErrNotEnoughTurns) {
				t.Errorf("Rewind(4) = %v, want ErrNotEnoughTurns", err)
			}
			if treeHash(t, root, true) != before || len(th.Turns()) != 3 {
				t.Error("a refused rewind changed something")
			}
		})
	}
}

// TestOtherMachineRefused: a journal recorded on another machine, or for another root,
// refuses rewinds and new snapshots.
func TestOtherMachineRefused(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-m", root)
			threeTurns(t, th, root, true)
			before := treeHash(t, root, true)

			path := filepath.Join(home, "snapshots", "thread-m", "journal.json")
			j, _, err := loadJournal(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			j.MachineID, j.Host = "0123456789abcdef0123456789abcdef", "elsewhere.example"
			if err := j.save(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			other := mustOpen(t, home, "thread-m", root)
			if _, err := other.Rewind(context.Background(), 1); !errors.Is(err, ErrForeign) {
				t.Errorf("Rewind on another machine = %v, want ErrForeign", err)
			}
			if err := other.BeginTurn(context.Background(), "t4"); !errors.Is(err, ErrForeign) {
				t.Errorf("BeginTurn on another machine = %v, want ErrForeign", err)
			}
			if treeHash(t, root, true) != before {
				t.Error("a refused rewind changed files")
			}

			here := thisMachine()
			j.MachineID, j.Host, j.Root = here.ID, here.Host, t.TempDir()
			if err := j.save(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			moved := mustOpen(t, home, "thread-m", root)
			if _, err := moved.Plan(context.Background(), 1); !errors.Is(err, ErrForeign) {
				t.Errorf("Plan for another root = %v, want ErrForeign", err)
			}
		})
	}
}

func TestPrune(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-p", root)
			threeTurns(t, th, root, true)
			// Another thread's snapshots stay.
			turn(t, mustOpen(t, home, "thread-q", root), "q1", func() {})
			if err := Prune(home, "thread-p"); err != nil {
				t.Fatal(err)
			}
			if exists(home, "snapshots/thread-p") {
				t.Error("the journal dir is still there")
			}
			if kind == gitTree {
				refs := git(t, root, "for-each-ref", "--format=%(refname)", "refs/gocodex/snapshots/thread-p")
				if refs != "" {
					t.Errorf("refs left after Prune:\n%s", refs)
				}
				if refs := git(t, root, "for-each-ref", "refs/gocodex/snapshots/thread-q"); refs == "" {
					t.Error("Prune removed another thread's refs")
				}
			}
			if err := Prune(home, "thread-p"); err != nil {
				t.Errorf("Prune of a pruned thread: %v", err)
			}
			if err := Prune(home, "../escape"); err == nil {
				t.Error("Prune accepted a thread id with a path in it")
			}
		})
	}
}

// TestTwoHandles: two Threads of one id (a TUI and an app-server, or one Open per turn)
// see each other's turns and rewinds.
func TestTwoHandles(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			a := mustOpen(t, home, "thread-2h", root)
			b := mustOpen(t, home, "thread-2h", root)
			before := treeHash(t, root, true)
			turn(t, a, "t1", func() { write(t, root, "one.txt", "1\n", 0o644) })
			turn(t, b, "t2", func() { write(t, root, "two.txt", "2\n", 0o644) })
			if got := len(a.Turns()); got != 2 {
				t.Fatalf("a sees %d turns, want 2", got)
			}
			if _, err := a.Rewind(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			if treeHash(t, root, true) != before {
				t.Error("rewinding turns recorded through two handles did not restore the tree")
			}
			turn(t, b, "t3", func() { write(t, root, "a.txt", "3\n", 0o644) })
			if _, err := b.Rewind(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if treeHash(t, root, true) != before {
				t.Error("a turn after the other handle's rewind was not rewound")
			}
		})
	}
}

// TestTypeChanges: a turn that puts a directory where a file was, and a file where a
// directory was, is rewound (the removals go first, then the files come back).
func TestTypeChanges(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			exact := kind == plainTree
			before := treeHash(t, root, exact)
			th := mustOpen(t, home, "thread-t", root)
			turn(t, th, "t1", func() {
				os.Remove(filepath.Join(root, "a.txt"))
				write(t, root, "a.txt/inside.txt", "a directory now\n", 0o644)
				os.RemoveAll(filepath.Join(root, "sub"))
				write(t, root, "sub", "a file now\n", 0o755)
			})
			p, err := th.Rewind(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			want := []Change{{"a.txt", Create}, {"a.txt/inside.txt", Delete}, {"sub", Delete}, {"sub/e.txt", Create}}
			if diff := cmp.Diff(want, p.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if treeHash(t, root, exact) != before {
				t.Error("the tree is not restored")
			}
		})
	}
}

// Forget drops turns from the journal and leaves the files alone; the next rewind counts
// only the turns that remain.
func TestForgetKeepsFiles(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-f", root)
			turn(t, th, "turn-1", func() { write(t, root, "new1.txt", "1\n", 0o644) })
			turn(t, th, "turn-2", func() { write(t, root, "new2.txt", "2\n", 0o644) })
			if err := th.Forget(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if got := read(t, root, "new2.txt"); got != "2\n" {
				t.Fatalf("Forget touched new2.txt: %q", got)
			}
			if n := len(th.Turns()); n != 1 {
				t.Fatalf("%d turns after Forget", n)
			}
			if _, err := th.Rewind(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if exists(root, "new1.txt") || !exists(root, "new2.txt") {
				t.Error("the rewind after Forget did not undo exactly the remaining turn")
			}
			if err := th.Forget(context.Background(), 1); !errors.Is(err, ErrNotEnoughTurns) {
				t.Errorf("Forget past the first turn: %v", err)
			}
		})
	}
}

// A quiet turn (no tool ran) takes no snapshot and counts as a turn: rewinding across it
// undoes the turns around it, and rewinding it alone changes nothing.
func TestQuietTurns(t *testing.T) {
	for _, kind := range kinds() {
		t.Run(string(kind), func(t *testing.T) {
			root, home := newTree(t, kind, baseFiles)
			th := mustOpen(t, home, "thread-q", root)
			if err := th.QuietTurn(context.Background(), "turn-0"); err != nil {
				t.Fatal(err)
			}
			turn(t, th, "turn-1", func() { write(t, root, "new1.txt", "1\n", 0o644) })
			if err := th.QuietTurn(context.Background(), "turn-2"); err != nil {
				t.Fatal(err)
			}
			p, err := th.Plan(context.Background(), 1)
			if err != nil || len(p.Changes) != 0 {
				t.Fatalf("rewinding a quiet turn: %+v, %v", p, err)
			}
			if _, err := th.Rewind(context.Background(), 3); err != nil {
				t.Fatal(err)
			}
			if exists(root, "new1.txt") || len(th.Turns()) != 0 {
				t.Errorf("rewinding across a quiet turn: new1.txt still there or %d turns left", len(th.Turns()))
			}
			// The journal with quiet turns reads back.
			if _, err := Open(home, "thread-q", root); err != nil {
				t.Fatal(err)
			}
		})
	}
}
