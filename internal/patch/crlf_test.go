package patch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestApplyKeepsCRLFFiles: a Windows file (CRLF) edited by a patch that itself came with
// CRLF line ends keeps CRLF on every line, old and new, and moves keep it too.
func TestApplyKeepsCRLFFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\r\n\r\nfunc main() {\r\n}\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "*** Begin Patch\r\n*** Update File: main.go\r\n*** Move to: cmd/main.go\r\n@@ func main() {\r\n+\tprintln(\"hi\")\r\n }\r\n*** End Patch\r\n"
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(dir, p); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "cmd", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := "package main\r\n\r\nfunc main() {\r\n\tprintln(\"hi\")\r\n}\r\n"
	if string(got) != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}
