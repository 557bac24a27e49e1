package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUpdateFileContents pins what an update does to a file's bytes. Every case was run
// through the Codex 0.169 binary, whose result is the expectation.
func TestUpdateFileContents(t *testing.T) {
	const (
		noop    = "*** Begin Patch\n*** Update File: f\n@@\n a\n*** End Patch"
		replA   = "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End Patch"
		insertX = "*** Begin Patch\n*** Update File: f\n@@\n+x\n*** End Patch"
		eofA    = "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End of File\n*** End Patch"
		replB2  = "*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n+B2\n*** End Patch"
	)
	tests := []struct {
		name, before, patch, after, stderr string
	}{
		{"trailing blank lines kept", "a\n\n", noop, "a\n\n", ""},
		{"trailing blank lines kept on edit", "a\n\n", replA, "A\n\n", ""},
		{"three newlines", "a\n\n\n", noop, "a\n\n\n", ""},
		{"missing final newline added", "a", noop, "a\n", ""},
		{"CRLF kept", "a\r\nb\r\n", noop, "a\r\nb\r\n", ""},
		{"CRLF edit", "a\r\nb\r\n", replA, "A\r\nb\r\n", ""},
		{"insert into empty file", "", insertX, "x\n", ""},
		{"insert after trailing blank line", "a\n\n", insertX, "a\n\nx\n", ""},
		{"insert after unterminated line", "a", insertX, "a\nx\n", ""},
		{"insert into CRLF file", "a\r\nb\r\n", insertX, "a\r\nb\r\nx\r\n", ""},
		{"end of file anchor sees the blank last line", "a\n\n", eofA, "a\n\n", "Failed to find expected lines in $DIR/f:\na\n"},
		{"end of file anchor", "b\na\n", eofA, "b\nA\n", ""},
		{"end of file anchor mismatch", "a\nb\n", eofA, "a\nb\n", "Failed to find expected lines in $DIR/f:\na\n"},
		{"only a newline", "\n", "*** Begin Patch\n*** Update File: f\n@@\n \n*** End Patch", "\n", ""},
		{"delete every line", "a\n", "*** Begin Patch\n*** Update File: f\n@@\n-a\n*** End Patch", "", ""},
		{"delete up to a blank line", "a\n\n", "*** Begin Patch\n*** Update File: f\n@@\n-a\n*** End Patch", "\n", ""},
		{"mixed endings untouched", "a\r\nb\n", noop, "a\r\nb\n", ""},
		{"new lines take the first ending (LF)", "a\nb\r\n", replB2, "a\nB\nB2\n", ""},
		{"new lines take the first ending (CRLF)", "a\r\nb\n", replB2, "a\r\nB\r\nB2\r\n", ""},
		{"unchanged lines keep theirs", "a\nb\r\n", "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n+A2\n*** End Patch", "A\nA2\nb\r\n", ""},
		{"unterminated CRLF file", "a\r\nb", "*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End Patch", "a\r\nB\r\n", ""},
		{"lone CR endings", "a\rb\r", "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n+A2\n*** End Patch", "A\rA2\rb\r", ""},
		{"context keeps its own ending", "a\r\nb\nc\r\n", "*** Begin Patch\n*** Update File: f\n@@\n b\n-c\n+C\n*** End Patch", "a\r\nb\nC\r\n", ""},
		{"context keeps loosely matched text", "x  \ny\n", "*** Begin Patch\n*** Update File: f\n@@\n x\n-y\n+Y\n*** End Patch", "x  \nY\n", ""},
		{"context keeps typographic quotes", "say \u201chi\u201d\nz\n", "*** Begin Patch\n*** Update File: f\n@@\n say \"hi\"\n-z\n+Z\n*** End Patch", "say \u201chi\u201d\nZ\n", ""},
		{"removed and re-added line is new", "q\r\nb  \nc\n", "*** Begin Patch\n*** Update File: f\n@@\n-b\n+b\n*** End Patch", "q\r\nb\r\nc\n", ""},
		{"context in the middle", "q\r\nx\nb\ny\n", "*** Begin Patch\n*** Update File: f\n@@\n-x\n b\n-y\n+X\n+Y\n*** End Patch", "q\r\nb\nX\r\nY\r\n", ""},
		{"added before context", "q\r\nb\nc\n", "*** Begin Patch\n*** Update File: f\n@@\n+N\n b\n-c\n*** End Patch", "q\r\nN\r\nb\n", ""},
		{"byte order mark is part of the first line", "\ufeffa\nb\n", "*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End Patch", "\ufeffa\nB\n", ""},
		{"blank line before first chunk is context", "a\nb\n", "*** Begin Patch\n*** Update File: f\n\n-a\n+A\n*** End Patch", "a\nb\n", "Failed to find expected lines in $DIR/f:\n\na\n"},
		{"blank line after an End of File chunk is skipped", "a\nb\n", "*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End of File\n   \n@@\n+C\n*** End Patch", "a\nB\nC\n", ""},
		{"patch lines with stray CRs", "a\nb\n", "*** Begin Patch\r\r\n*** Update File: f\r\n@@\r\n-a\r\r\n+A\r\n*** End Patch\r\n", "A\nb\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			runStandalone(dir, []string{"apply_patch", tt.patch}, strings.NewReader(""), &stdout, &stderr)
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := [2]string{string(after), stderr.String()}
			want := [2]string{tt.after, strings.ReplaceAll(tt.stderr, "$DIR", dir)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("file, stderr differ (-want +got):\n%s", diff)
			}
		})
	}
}
