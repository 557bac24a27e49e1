package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expected texts below were taken from the Codex 0.169 binary run as apply_patch on the
// same inputs; $DIR stands for the working directory.
func TestStandaloneMessages(t *testing.T) {
	const hdr = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
	tests := []struct {
		name   string
		files  map[string]string
		args   []string // after argv[0]; nil means read stdin
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "no args, empty stdin", code: 2,
			stderr: "Usage: apply_patch 'PATCH'\n       echo 'PATCH' | apply_patch\n"},
		{name: "two args", args: []string{"a", "b"}, code: 2,
			stderr: "Error: apply_patch accepts exactly one argument.\n"},
		{name: "empty arg", args: []string{""}, code: 1,
			stderr: "Invalid patch: The last line of the patch must be '*** End Patch'\n"},
		{name: "argument not UTF-8", args: []string{"\xff"}, code: 1,
			stderr: "Error: apply_patch requires a UTF-8 PATCH argument.\n"},
		{name: "stdin not UTF-8", stdin: "*** Begin Patch\n*** Add File: u\n+\xff\n*** End Patch", code: 1,
			stderr: "Error: Failed to read PATCH from stdin.\nstream did not contain valid UTF-8\n"},
		{name: "patch on stdin", stdin: "*** Begin Patch\n*** Add File: s.txt\n+x\n*** End Patch\n",
			stdout: "Success. Updated the following files:\nA s.txt\n"},
		{name: "no begin", args: []string{"hello"}, code: 1,
			stderr: "Invalid patch: The first line of the patch must be '*** Begin Patch'\n"},
		{name: "no end", args: []string{"*** Begin Patch\n*** Add File: a\n+x"}, code: 1,
			stderr: "Invalid patch: The last line of the patch must be '*** End Patch'\n"},
		{name: "only begin", args: []string{"*** Begin Patch"}, code: 1,
			stderr: "Invalid patch: The last line of the patch must be '*** End Patch'\n"},
		{name: "heredoc wrapped", args: []string{"<<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+x\n*** End Patch\nEOF"},
			stdout: "Success. Updated the following files:\nA h.txt\n"},
		{name: "heredoc without end marker", args: []string{"<<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+x\nEOF"}, code: 1,
			stderr: "Invalid patch: The last line of the patch must be '*** End Patch'\n"},
		{name: "later chunk without @@", args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\n-x\n+y\nfoo\n@@ bar\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: 'foo'\n"},
		{name: "blank line then junk", args: []string{"*** Begin Patch\n*** Update File: s.txt\n-x\n+y\n\nbad\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: 'bad'\n"},
		{name: "unexpected line", args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\nbad\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)\n"},
		{name: "tab after @@", args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\tnope\n-x\n+y\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 3: Unexpected line found in update hunk: '@@\tnope'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)\n"},
		{name: "@@ only", args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Update hunk does not contain any lines\n"},
		{name: "end of file only", args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\n*** End of File\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Update hunk does not contain any lines\n"},
		{name: "empty update hunk", args: []string{"*** Begin Patch\n*** Update File: foo.txt\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty\n"},
		{name: "invalid header", args: []string{"*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. " + hdr + "\n"},
		{name: "junk after add lines", args: []string{"*** Begin Patch\n*** Add File: j.txt\n+x\njunk\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: 'junk' is not a valid hunk header. " + hdr + "\n"},
		{name: "space line after add", args: []string{"*** Begin Patch\n*** Add File: q.txt\n+a\n \n+b\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: '' is not a valid hunk header. " + hdr + "\n"},
		{name: "no hunks", args: []string{"*** Begin Patch\n*** End Patch"}, code: 1,
			stderr: "No files were modified.\n"},
		{name: "context missing", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@ nothere\n-x\n+y\n*** End Patch"}, code: 1,
			stderr: "Failed to find context 'nothere' in $DIR/s.txt\n"},
		{name: "context keeps inner spaces", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@   nope  \n-x\n+y\n*** End Patch"}, code: 1,
			stderr: "Failed to find context '  nope' in $DIR/s.txt\n"},
		{name: "expected lines missing", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: s.txt\n@@\n-missing\n-two\n+changed\n*** End Patch"}, code: 1,
			stderr: "Failed to find expected lines in $DIR/s.txt:\nmissing\ntwo\n"},
		{name: "indented move is a context line", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: s.txt\n  *** Move to: m.txt\n@@\n-y\n+z\n*** End Patch"}, code: 1,
			stderr: "Failed to find expected lines in $DIR/s.txt:\n *** Move to: m.txt\n"},
		{name: "indented @@ is a context line", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: s.txt\n  @@\n-x\n+y\n*** End Patch"}, code: 1,
			stderr: "Failed to find expected lines in $DIR/s.txt:\n @@\nx\n"},
		{name: "update of missing file", args: []string{"*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch"}, code: 1,
			stderr: "Failed to read file to update $DIR/missing.txt: No such file or directory (os error 2)\n"},
		{name: "update of a directory", files: map[string]string{"d/x": "x\n"}, args: []string{"*** Begin Patch\n*** Update File: d\n@@\n-x\n+y\n*** End Patch"}, code: 1,
			stderr: "Failed to read file to update $DIR/d: path `$DIR/d` is not a file\n"},
		{name: "update of invalid utf-8", files: map[string]string{"bin": "\xff\xfe\n"}, args: []string{"*** Begin Patch\n*** Update File: bin\n@@\n-z\n+w\n*** End Patch"}, code: 1,
			stderr: "Failed to read file to update $DIR/bin: invalid utf-8 sequence of 1 bytes from index 0\n"},
		{name: "delete of missing file, path cleaned", args: []string{"*** Begin Patch\n*** Delete File: ./nope/../zz.txt\n*** End Patch"}, code: 1,
			stderr: "Failed to delete file $DIR/zz.txt\n"},
		{name: "delete of a directory", files: map[string]string{"dir/foo.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Delete File: dir\n*** End Patch"}, code: 1,
			stderr: "Failed to delete file $DIR/dir\n"},
		{name: "add onto a directory", files: map[string]string{"d/x": "x\n"}, args: []string{"*** Begin Patch\n*** Add File: d\n+x\n*** End Patch"}, code: 1,
			stderr: "Failed to write file $DIR/d\n"},
		{name: "add under a file", files: map[string]string{"d": "x\n"}, args: []string{"*** Begin Patch\n*** Add File: d/f.txt\n+x\n*** End Patch"}, code: 1,
			stderr: "Failed to write file $DIR/d/f.txt\n"},
		{name: "move under a file", files: map[string]string{"d": "x\n", "a": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: a\n*** Move to: d/x\n@@\n-a\n+A\n*** End Patch"}, code: 1,
			stderr: "Failed to write file $DIR/d/x\n"},
		{name: "paths as spelled", files: map[string]string{"s.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Add File:   sp.txt  \n+q\n*** Update File: s.txt\n*** Move to:   m.txt  \n@@\n-x\n+y\n*** End Patch"},
			stdout: "Success. Updated the following files:\nA   sp.txt\nM   m.txt\n"},
		{name: "early End Patch followed by more", args: []string{"*** Begin Patch\n*** Add File: q\n+q\n*** End Patch\n*** Add File: r\n+r\n*** End Patch"}, code: 1,
			stderr: "Invalid patch: The last line of the patch must be '*** End Patch'\n"},
		{name: "early End Patch followed by blank lines", args: []string{"*** Begin Patch\n*** Add File: q\n+q\n  *** End Patch \n\n*** End Patch"},
			stdout: "Success. Updated the following files:\nA q\n"},
		{name: "End Patch alone", args: []string{"*** Begin Patch\n*** End Patch\n*** End Patch"}, code: 1,
			stderr: "No files were modified.\n"},
		{name: "Begin Patch twice", args: []string{"*** Begin Patch\n*** Begin Patch\n*** Add File: q\n+q\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 2: '*** Begin Patch' is not a valid hunk header. " + hdr + "\n"},
		{name: "star line after a chunk", files: map[string]string{"f": "a\nb\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End of File\n*** Frob\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 7: Expected update hunk to start with a @@ context marker, got: '*** Frob'\n"},
		{name: "move line after a chunk", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** Move to: g\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: '*** Move to: g'\n"},
		{name: "indented header after a chunk", files: map[string]string{"f": "a\nb\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End of File\n  *** Add File: q\n+q\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 7: Expected update hunk to start with a @@ context marker, got: '  *** Add File: q'\n"},
		{name: "header without a path after a chunk", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** Update File:\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: '*** Update File:'\n"},
		{name: "End of File before the first chunk is skipped", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n*** End of File\n*** Update File: f  \n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 2: Update file hunk for path 'f' is empty\n"},
		{name: "End of File then a bad line", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n*** End of File\ntab\there\n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Unexpected line found in update hunk: 'tab\there'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)\n"},
		{name: "misplaced header is reported trimmed", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@ a\n*** Add File: g  \n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Unexpected line found in update hunk: '*** Add File: g'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)\n"},
		{name: "other unexpected lines are reported as is", files: map[string]string{"f": "a\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@ a\n*** Move to: x  \n*** End Patch"}, code: 1,
			stderr: "Invalid patch hunk on line 4: Unexpected line found in update hunk: '*** Move to: x  '. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)\n"},
		{name: "same file updated twice", files: map[string]string{"f": "a\nb\n"}, args: []string{"*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** Update File: f  \n@@\n-b\n+B\n*** End Patch"},
			stdout: "Success. Updated the following files:\nM f\nM f\n"},
		{name: "summary order A M D", files: map[string]string{"d.txt": "x\n", "m.txt": "x\n"}, args: []string{"*** Begin Patch\n*** Delete File: d.txt\n*** Update File: m.txt\n@@\n-x\n+y\n*** Add File: a.txt\n+a\n*** End Patch"},
			stdout: "Success. Updated the following files:\nA a.txt\nM m.txt\nD d.txt\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			code := runStandalone(dir, append([]string{"apply_patch"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			got := [3]string{string(rune('0' + code)), stdout.String(), stderr.String()}
			want := [3]string{string(rune('0' + tt.code)), tt.stdout, strings.ReplaceAll(tt.stderr, "$DIR", dir)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("exit code, stdout, stderr differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStandaloneReadsCwd(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := RunStandalone([]string{"apply_patch"}, strings.NewReader("*** Begin Patch\n*** Add File: x/y.txt\n+hi\n*** End Patch\n"), &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "x", "y.txt"))
	if err != nil || string(data) != "hi\n" {
		t.Fatalf("x/y.txt = %q, %v", data, err)
	}
}

// The hidden first argument makes a binary apply_patch reading the patch from stdin (how the
// apply_patch tool runs it inside the sandbox); other arguments are left alone.
func TestDispatchStandalone(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if _, ok := DispatchStandalone([]string{"gocodex", "exec"}, strings.NewReader(""), &stdout, &stderr); ok {
		t.Error("dispatched a command line without the hidden argument")
	}
	code, ok := DispatchStandalone([]string{"gocodex", RunAsApplyPatchArg}, strings.NewReader(""), &stdout, &stderr)
	if !ok || code != 2 || !strings.HasPrefix(stderr.String(), "Usage: apply_patch") {
		t.Errorf("dispatch with empty stdin: %v %d %q", ok, code, stderr.String())
	}
}
