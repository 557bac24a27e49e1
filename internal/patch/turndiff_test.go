package patch

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// applyTracked verifies, tracks and applies one patch, as the tool handler does.
func applyTracked(t *testing.T, td *TurnDiff, dir, text string) {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	td.Track(v)
	if _, err := Apply(dir, p); err != nil {
		t.Fatal(err)
	}
}

func TestTurnDiff(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	writeFiles(t, dir, map[string]string{
		"src/main.go": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"old.txt":     "one\ntwo\n",
		"gone.txt":    "bye\n",
		"same.txt":    "x\n",
	})
	td := NewTurnDiff()
	if got := td.UnifiedDiff(); got != "" {
		t.Fatalf("empty tracker diff = %q", got)
	}
	applyTracked(t, td, dir, "*** Begin Patch\n*** Update File: src/main.go\n@@\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n*** Add File: docs/new.md\n+# New\n*** End Patch")
	// A second patch in the same turn: baselines stay those of the first touch.
	applyTracked(t, td, dir, "*** Begin Patch\n*** Update File: src/main.go\n@@\n-\tprintln(\"hello\")\n+\tprintln(\"hello, world\")\n*** Update File: old.txt\n*** Move to: moved/new.txt\n@@\n-two\n+2\n*** Delete File: gone.txt\n*** Add File: same.txt\n+x\n*** End Patch")
	got := td.UnifiedDiff()
	golden(t, "turndiff.golden", got)

	// The index lines carry git's blob ids.
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "hash-object", filepath.Join(dir, "src/main.go")).Output()
		if err != nil {
			t.Fatal(err)
		}
		if oid := strings.TrimSpace(string(out)); !strings.Contains(got, ".."+oid+"\n") {
			t.Errorf("diff does not name blob %s of src/main.go:\n%s", oid, got)
		}
	}
}

// TestTurnDiffOutsideRepo: outside git, the Codex binary names files under the turn's
// directory relative to it and others by absolute path ("a//tmp/…").
func TestTurnDiffOutsideRepo(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ws")
	td := NewTurnDiff()
	td.SetCwd(dir)
	applyTracked(t, td, dir, "*** Begin Patch\n*** Add File: ../out.txt\n+o\n*** Add File: sub/in.txt\n+i\n*** End Patch")
	out := filepath.ToSlash(filepath.Join(root, "out.txt"))
	want := "diff --git a/" + out + " b/" + out + "\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..13e7564ea0c889e81bcba6f8e496b2a74cdb32fa\n--- /dev/null\n+++ b/" + out + "\n@@ -0,0 +1 @@\n+o\n" +
		"diff --git a/sub/in.txt b/sub/in.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..0ddf2bae71d08623786db120996eea00b75f8237\n--- /dev/null\n+++ b/sub/in.txt\n@@ -0,0 +1 @@\n+i\n"
	if diff := cmp.Diff(want, td.UnifiedDiff()); diff != "" {
		t.Errorf("(-codex +ours):\n%s", diff)
	}
	applyTracked(t, td, dir, "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch")
	// Created and deleted within the turn: nothing to show.
	before := td.UnifiedDiff()
	applyTracked(t, td, dir, "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch")
	if got := td.UnifiedDiff(); got != want || !strings.Contains(before, "b/a.txt") {
		t.Errorf("diff after add+delete of a.txt:\n%s", got)
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\n7\n", "d.txt": "gone\n", "m.txt": "m\n"})
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-2\n+two\n@@\n-6\n+six\n*** Delete File: d.txt\n*** Add File: n/new.txt\n+new\n*** Update File: m.txt\n*** Move to: mm.txt\n@@\n-m\n+M\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(dir, p) }
	want := []Change{
		{Kind: UpdateFile, Path: abs("a.txt"), UnifiedDiff: "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -5,3 +5,3 @@\n 5\n-6\n+six\n 7\n", NewContent: "1\ntwo\n3\n4\n5\nsix\n7\n"},
		{Kind: DeleteFile, Path: abs("d.txt"), Content: "gone\n"},
		{Kind: AddFile, Path: abs("n/new.txt"), Content: "new\n"},
		{Kind: UpdateFile, Path: abs("m.txt"), UnifiedDiff: "@@ -1 +1 @@\n-m\n+M\n", NewContent: "M\n", MovePath: abs("mm.txt")},
	}
	if diff := cmp.Diff(want, v.Changes); diff != "" {
		t.Errorf("changes differ (-want +got):\n%s", diff)
	}
	// Nothing was written.
	if _, err := os.Stat(abs("n/new.txt")); !os.IsNotExist(err) {
		t.Errorf("verify created a file: %v", err)
	}
	fc := v.FileChanges()
	if got := fc[abs("m.txt")]; got.MovePath == nil || *got.MovePath != abs("mm.txt") || got.Kind != "update" {
		t.Errorf("FileChanges for move = %+v", got)
	}
	if got := fc[abs("d.txt")]; got.Kind != "delete" || got.Content != "gone\n" {
		t.Errorf("FileChanges for delete = %+v", got)
	}
}

func TestVerifyErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "a\n"})
	tests := []struct{ patch, want string }{
		{"*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch", "Failed to read $DIR/nope.txt: No such file or directory (os error 2)"},
		{"*** Begin Patch\n*** Update File: a.txt\n@@\n-zzz\n+y\n*** End Patch", "Failed to find expected lines in $DIR/a.txt:\nzzz"},
		{"*** Begin Patch\n*** Update File: b.txt\n@@\n-zzz\n+y\n*** End Patch", "Failed to read file to update $DIR/b.txt: No such file or directory (os error 2)"},
	}
	for _, tt := range tests {
		p, err := Parse(tt.patch)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Verify(dir, p)
		want := strings.ReplaceAll(tt.want, "$DIR", dir)
		if err == nil || err.Error() != want {
			t.Errorf("Verify error = %v, want %q", err, want)
		}
	}
}

func TestUnifiedHunks(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"a\n", "a\n", ""},
		{"", "x\n", "@@ -0,0 +1 @@\n+x\n"},
		{"x\n", "", "@@ -1 +0,0 @@\n-x\n"},
		{"a\nb", "a\nc", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"1\n2\n3\n4\n5\n", "1\n2\nX\n4\n5\n", "@@ -2,3 +2,3 @@\n 2\n-3\n+X\n 4\n"},
	}
	for _, tt := range tests {
		if got := unifiedHunks(tt.old, tt.new, 1); got != tt.want {
			t.Errorf("unifiedHunks(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
}

// TestVerifyCoreErrors pins verification texts the Codex binary gave its model
// (after "apply_patch verification failed: ").
func TestVerifyCoreErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bin": "\xff\n", "sub/x": "x\n", "b.txt": "b\n"})
	tests := []struct{ patch, want string }{
		{"*** Begin Patch\n*** Delete File: sub\n*** End Patch", "Failed to read $DIR/sub: path `$DIR/sub` is not a file"},
		{"*** Begin Patch\n*** Update File: sub\n@@\n-x\n+y\n*** End Patch", "Failed to read file to update $DIR/sub: path `$DIR/sub` is not a file"},
		{"*** Begin Patch\n*** Delete File: bin\n*** End Patch", "Failed to read $DIR/bin: invalid utf-8 sequence of 1 bytes from index 0"},
		{"*** Begin Patch\n*** Update File: bin\n@@\n-x\n+y\n*** End Patch", "Failed to read file to update $DIR/bin: invalid utf-8 sequence of 1 bytes from index 0"},
		{"*** Begin Patch\n*** Delete File: b.txt\n*** Delete File: ./b.txt\n*** End Patch", "invalid patch: multiple operations target $DIR/b.txt"},
		{"*** Begin Patch\n*** Add File: a.txt\n+1\n*** Update File: a.txt\n@@\n-1\n+2\n*** End Patch", "invalid patch: multiple operations target $DIR/a.txt"},
		{"*** Begin Patch\n*** Update File: b.txt\n*** Move to: a.txt\n@@\n-b\n+B\n*** Delete File: a.txt\n*** End Patch", "Failed to read $DIR/a.txt: No such file or directory (os error 2)"},
	}
	for _, tt := range tests {
		p, err := Parse(tt.patch)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Verify(dir, p)
		want := strings.ReplaceAll(tt.want, "$DIR", dir)
		if err == nil || err.Error() != want {
			t.Errorf("Verify(%q) error = %v, want %q", tt.patch, err, want)
		}
	}
	// A move onto another hunk's file is allowed: only the hunks' own paths must differ.
	p, err := Parse("*** Begin Patch\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-b\n+B\n*** Add File: c.txt\n+c\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dir, p); err != nil {
		t.Errorf("move onto an added file: %v", err)
	}
}

// TestTurnDiffMoveOntoExisting: the Codex binary reports a move onto an existing or tracked
// file as the source deleted and the destination modified.
func TestTurnDiffMoveOntoExisting(t *testing.T) {
	for _, tt := range []struct {
		name    string
		patches []string
		want    string
	}{
		{
			name:    "destination tracked earlier in the turn",
			patches: []string{"*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch"},
			want:    "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\nindex 78981922613b2afb6025042ff6bd878ac1994e85..0000000000000000000000000000000000000000\n--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\ndiff --git a/b.txt b/b.txt\nindex 61780798228d17af2d34fce4cfbdf35556832472..f70f10e4db19068f79bc43844b49f3eece45c4e8\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+A\n",
		},
		{
			name:    "destination exists untracked",
			patches: []string{"*** Begin Patch\n*** Update File: a.txt\n*** Move to: c.txt\n@@\n-a\n+A\n*** End Patch"},
			want:    "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\nindex 78981922613b2afb6025042ff6bd878ac1994e85..0000000000000000000000000000000000000000\n--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\ndiff --git a/c.txt b/c.txt\nindex f2ad6c76f0115a6ba5b00456a849810e7ec0af20..f70f10e4db19068f79bc43844b49f3eece45c4e8\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-c\n+A\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			writeFiles(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
			td := NewTurnDiff()
			for _, p := range tt.patches {
				applyTracked(t, td, dir, p)
			}
			if diff := cmp.Diff(tt.want, td.UnifiedDiff()); diff != "" {
				t.Errorf("(-codex +ours):\n%s", diff)
			}
		})
	}
}

// TestUnifiedHunksMatchCodex replays diffs the Codex binary produced (the unified_diff of
// update changes, one line of context) for random edits over a small alphabet, where many
// equally short diffs exist: ours must pick the same one, byte for byte.
func TestUnifiedHunksMatchCodex(t *testing.T) {
	data, err := os.ReadFile("testdata/codex_diffs.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Old, New, Diff string }
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		if got := unifiedHunks(c.Old, c.New, 1); got != c.Diff {
			t.Errorf("case %d: %q → %q\ncodex:\n%s\nours:\n%s", i, c.Old, c.New, c.Diff, got)
		}
	}
}
