package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPlaceholderLastHolderRemovesIt: a placeholder held by two sandboxes survives the first
// one's release and every reclaim until the second lets go.
func TestPlaceholderLastHolderRemovesIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".git")
	first, held, err := holdPlaceholder(p)
	if err != nil || !held {
		t.Fatalf("hold: %v %v", held, err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil || st.Mode&0o777 != 0o555 {
		t.Fatalf("placeholder mode %o: %v", st.Mode, err)
	}
	second, held, err := holdPlaceholder(p)
	if err != nil || !held {
		t.Fatalf("second hold: %v %v", held, err)
	}
	if !stillAt(second, p) {
		t.Fatal("the second sandbox holds another directory")
	}
	reclaimPlaceholder(p)
	releaseNames([]heldName{{path: p, lockFD: first}}) // the first sandbox ends
	if !exists(p) {
		t.Fatal("removed while the second sandbox holds it")
	}
	releaseNames([]heldName{{path: p, lockFD: second}})
	if exists(p) {
		t.Fatal("the last sandbox out left it")
	}
}

// TestReclaimLeavesOthersEntries: only an empty directory without write bits that nobody
// holds is removed; a placeholder killed helpers left is.
func TestReclaimLeavesOthersEntries(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	usersEmpty := mk("users-empty")
	filled := mk("filled")
	if err := os.WriteFile(filepath.Join(filled, "HEAD"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	left := mk("left-by-a-killed-helper")
	for _, p := range []string{filled, left} {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(left, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{usersEmpty, filled, file, link, left, filepath.Join(dir, "absent")} {
		reclaimPlaceholder(p)
	}
	for _, p := range []string{usersEmpty, filled, file, link} {
		if !exists(p) {
			t.Errorf("%s removed", p)
		}
	}
	if exists(left) {
		t.Errorf("%s kept", left)
	}
}

// TestHoldPlaceholderLeavesOthersEntries: an entry that is not a placeholder is bound as it
// is, and a name that cannot be created needs nothing.
func TestHoldPlaceholderLeavesOthersEntries(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, ".git")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, ".codex")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{repo, file, filepath.Join(dir, "gone", ".aws")} {
		if fd, held, err := holdPlaceholder(p); err != nil || held || fd != -1 {
			t.Errorf("%s: fd %d held %v err %v", p, fd, held, err)
		}
	}
	if exists(filepath.Join(dir, "gone")) {
		t.Error("created a missing root")
	}
}
