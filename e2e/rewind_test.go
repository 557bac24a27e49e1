package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// treeHash hashes every file under root but .git and the names in skip: path, kind, mode
// and bytes (a symlink's target).
func treeHash(t *testing.T, root string, skip ...string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		for _, s := range skip {
			if rel == s {
				return nil
			}
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%s link %s", rel, target))
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("%s file %o %s", rel, info.Mode().Perm(), hex.EncodeToString(sum[:])))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// Rewind with files: three turns create, edit, delete and chmod files; a hand edit in between
// is reported and kept; a hand edit of a file the turns changed is refused with nothing
// changed; rewinding two turns gives back the exact tree (bytes and modes) and the
// conversation of the first turn. In a git work tree the snapshots are git trees, which keep
// the modes git knows (the executable bit); elsewhere every permission bit is kept.
func TestRewindRestoresFilesAndConversation(t *testing.T) {
	t.Run("git", func(t *testing.T) { rewindScenario(t, true) })
	t.Run("no git", func(t *testing.T) { rewindScenario(t, false) })
}

func rewindScenario(t *testing.T, git bool) {
	e := newEnv(t)
	chmod, mode := "chmod 600 a.txt", os.FileMode(0o600)
	if git {
		chmod, mode = "chmod +x a.txt", 0o755
	} else if err := os.RemoveAll(filepath.Join(e.Workdir, ".git")); err != nil {
		t.Fatal(err)
	}
	w := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(e.Workdir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	w("notes.txt", "mine\n", 0o644)
	e.Model.Enqueue(
		commandCall("c1", `printf one > a.txt && printf keep > b.txt && chmod +x b.txt`), answer("TURN1"),
		commandCall("c2", `printf two > a.txt && rm b.txt && printf new > c.txt && `+chmod), answer("TURN2"),
		commandCall("c3", `printf three > a.txt && mkdir -p d && printf x > d/e.txt`), answer("TURN3"),
		answer("AFTERREWIND"),
	)
	exec := func(args ...string) result {
		r := e.run("", append([]string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, args...)...)
		if r.Code != 0 {
			t.Fatalf("exec %v: %+v", args, r)
		}
		return r
	}
	first := exec("turn one")
	var started struct {
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal([]byte(strings.SplitN(first.Stdout, "\n", 2)[0]), &started)
	id := started.ThreadID
	if id == "" {
		t.Fatalf("no thread id in %s", first.Stdout)
	}
	afterFirst := treeHash(t, e.Workdir, "notes.txt")
	exec("resume", id, "turn two")
	w("notes.txt", "edited by hand\n", 0o644) // between turns 2 and 3, on a file no turn touches
	exec("resume", id, "turn three")
	afterThird := treeHash(t, e.Workdir)

	// A dry run lists what would change and changes nothing.
	dry := e.run("", "rewind", id, "--turns", "2", "--dry-run")
	if dry.Code != 0 || !strings.Contains(dry.Stdout, "would restore") || !strings.Contains(dry.Stdout, "kept    notes.txt") ||
		!strings.Contains(dry.Stdout, "delete  c.txt") || !strings.Contains(dry.Stdout, "create  b.txt") || !strings.Contains(dry.Stdout, "modify  a.txt") {
		t.Fatalf("dry run: %+v", dry)
	}
	if treeHash(t, e.Workdir) != afterThird {
		t.Fatal("the dry run changed the tree")
	}

	// Refusals change nothing: past the first turn, and across a hand edit of a turn's file.
	if r := e.run("", "rewind", id, "--turns", "4"); r.Code != 1 || !strings.Contains(r.Stderr, "cannot rewind 4 turns") {
		t.Errorf("rewind past the first turn: %+v", r)
	}
	aBytes, _ := os.ReadFile(filepath.Join(e.Workdir, "a.txt"))
	w("a.txt", "hand edit\n", mode)
	conflicted := treeHash(t, e.Workdir)
	if r := e.run("", "rewind", id, "--turns", "2"); r.Code != 1 || !strings.Contains(r.Stderr, "a.txt") || !strings.Contains(r.Stderr, "nothing changed") {
		t.Errorf("rewind across a hand edit: %+v", r)
	}
	if treeHash(t, e.Workdir) != conflicted {
		t.Fatal("a refused rewind changed the tree")
	}
	w("a.txt", string(aBytes), mode)

	r := e.run("", "rewind", id, "--turns", "2")
	if r.Code != 0 || !strings.Contains(r.Stdout, "restored") || !strings.Contains(r.Stdout, "kept    notes.txt") {
		t.Fatalf("rewind: %+v", r)
	}
	if got := treeHash(t, e.Workdir, "notes.txt"); got != afterFirst {
		t.Errorf("the tree after rewinding two turns is not the tree after the first")
	}
	if b, _ := os.ReadFile(filepath.Join(e.Workdir, "notes.txt")); string(b) != "edited by hand\n" {
		t.Errorf("the hand edit was not kept: %q", b)
	}

	// The conversation goes on from the first turn.
	exec("resume", id, "after the rewind")
	reqs := e.Model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "TURN1") || strings.Contains(last, "TURN2") || strings.Contains(last, "turn three") {
		t.Errorf("the resumed conversation still holds the rewound turns")
	}
}

// /undo in the terminal UI takes back the last turn: its files and its place in the
// conversation.
func TestTUIUndo(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(commandCall("c1", "printf made > made.txt"), answer("MADEIT"), answer("FRESHSTART"))
	s := e.startTUI("-a", "never", "-s", "danger-full-access")
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("make a file\r")
	pos = s.screen.waitFor(t, "MADEIT", pos)
	pos = s.screen.waitFor(t, "Token usage:", pos)
	if _, err := os.Stat(filepath.Join(e.Workdir, "made.txt")); err != nil {
		t.Fatalf("the turn made no file: %v", err)
	}
	s.typeKeys("/undo\r")
	pos = s.screen.waitFor(t, "Undid the last turn: 1 file(s) restored", pos)
	pos = s.screen.waitFor(t, "delete made.txt", pos)
	if _, err := os.Stat(filepath.Join(e.Workdir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there: %v", err)
	}
	s.typeKeys("/undo\r")
	pos = s.screen.waitFor(t, "/undo: snapshot: not enough recorded turns", pos)
	s.typeKeys("start again\r")
	pos = s.screen.waitFor(t, "FRESHSTART", pos)
	s.quit(pos)
	reqs := e.Model.Requests()
	if last := string(reqs[len(reqs)-1].Body); strings.Contains(last, "make a file") || strings.Contains(last, "MADEIT") {
		t.Error("the undone turn is still in the conversation")
	}
}

// thread/rollback keeps Codex's meaning (history only); restoreFiles is the opt-in that also
// restores the turns' files; thread/delete prunes the snapshots.
func TestAppServerRollbackRestoreFilesOptIn(t *testing.T) {
	e := appServerEnv(t, "never")
	e.Model.Enqueue(commandCall("c1", "printf one > one.txt"), answer("ONE"), commandCall("c2", "printf two > two.txt"), answer("TWO"))
	c, _ := e.startAppServer()
	c.sess.Unschematized("thread/rollback")
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "one")
	c.until("turn/completed")
	c.mustCall("thread/rollback", map[string]any{"threadId": id, "numTurns": 1}, nil)
	if _, err := os.Stat(filepath.Join(e.Workdir, "one.txt")); err != nil {
		t.Errorf("thread/rollback without restoreFiles touched the files: %v", err)
	}
	c.turn(id, "two")
	c.until("turn/completed")
	os.WriteFile(filepath.Join(e.Workdir, "two.txt"), []byte("hand"), 0o644)
	if _, e := c.call("thread/rollback", map[string]any{"threadId": id, "numTurns": 1, "restoreFiles": true}); e == nil || !strings.Contains(e.Error.Message, "two.txt") {
		t.Errorf("a hand edit of the turn's file was not refused: %+v", e)
	}
	os.WriteFile(filepath.Join(e.Workdir, "two.txt"), []byte("two"), 0o644)
	c.mustCall("thread/rollback", map[string]any{"threadId": id, "numTurns": 1, "restoreFiles": true}, nil)
	if _, err := os.Stat(filepath.Join(e.Workdir, "two.txt")); !os.IsNotExist(err) {
		t.Errorf("restoreFiles left two.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Workdir, "one.txt")); err != nil {
		t.Errorf("restoreFiles went too far: %v", err)
	}
	snaps := filepath.Join(e.CodexHome, "snapshots", id)
	if _, err := os.Stat(snaps); err != nil {
		t.Fatalf("no snapshots for the thread: %v", err)
	}
	c.mustCall("thread/delete", map[string]any{"threadId": id}, nil)
	if _, err := os.Stat(snaps); !os.IsNotExist(err) {
		t.Errorf("thread/delete left the snapshots: %v", err)
	}
}
