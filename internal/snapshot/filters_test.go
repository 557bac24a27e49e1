package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The snapshots run no filter driver: they keep a file's bytes as they are in the tree. The
// user's index, which seeds the private one, holds what the driver made of the file; those
// entries are dropped at the seed, or a rewind would write the driver's output back (here the
// upper-cased text) instead of the file.
func TestFilteredFileComesBackAsItWas(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	git(t, root, "init", "-q")
	git(t, root, "config", "filter.up.clean", "tr a-z A-Z")
	git(t, root, "config", "filter.up.smudge", "tr A-Z a-z")
	write(t, root, ".gitattributes", "*.txt filter=up\n", 0o644)
	write(t, root, "f.txt", "lower case\n", 0o644)
	write(t, root, "plain.bin", "kept\n", 0o644)
	past := time.Now().Add(-time.Hour)
	for _, f := range []string{".gitattributes", "f.txt", "plain.bin"} {
		if err := os.Chtimes(filepath.Join(root, f), past, past); err != nil {
			t.Fatal(err)
		}
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "one")
	if got := git(t, root, "cat-file", "blob", "HEAD:f.txt"); got != "LOWER CASE\n" {
		t.Fatalf("the fixture's filter did not run: %q", got)
	}

	ctx := context.Background()
	th, err := Open(t.TempDir(), "filtered", root)
	if err != nil {
		t.Fatal(err)
	}
	if err := th.BeginTurn(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "f.txt", "changed by the turn\n", 0o644)
	write(t, root, "plain.bin", "changed too\n", 0o644)
	if err := th.EndTurn(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := th.Rewind(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"f.txt": "lower case\n", "plain.bin": "kept\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, f)); string(got) != want {
			t.Errorf("%s came back as %q, want %q", f, got, want)
		}
	}
}
