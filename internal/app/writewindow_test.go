package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/writejournal"
	"github.com/gocodex/gocodex/protocol"
)

// A thread opens one window per new set of writable roots and closes them all at its end.
func TestWriteWindowsCoverEachRootOnce(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	w := &writeWindows{journal: writejournal.Open(home), getenv: func(string) string { return "" }, covered: map[string]bool{}}
	ws := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
	for _, cwd := range []string{a, a, b} {
		if err := w.cover(ws, cwd); err != nil {
			t.Fatal(err)
		}
	}
	w.end()
	data, err := os.ReadFile(filepath.Join(home, writejournal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Count(text, `"begin"`) != 2 || strings.Count(text, `"end"`) != 2 || !strings.Contains(text, a) || !strings.Contains(text, b) {
		t.Errorf("journal:\n%s", text)
	}
}
