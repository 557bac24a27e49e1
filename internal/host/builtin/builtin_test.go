package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/host/gitedits"
	"github.com/gocodex/gocodex/internal/host/goals"
	"github.com/gocodex/gocodex/internal/host/sections"
)

// The built-in extensions write gocodex_thread_state.json as gocodex always has: version,
// sections, threadSections, attachments, git, goals, goalTimeMs, one-space indent.
func TestThreadStateFileLayout(t *testing.T) {
	home := t.TempDir()
	set, err := Start(ext.Options{CodexHome: home})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := ext.Find[*goals.Extension](set)
	s, _ := ext.Find[*sections.Extension](set)
	gi, _ := ext.Find[*gitedits.Extension](set)
	obj := "ship"
	if _, err := g.Set("t1", &obj, nil, nil); err != nil {
		t.Fatal(err)
	}
	pinned := sections.PinnedID
	if err := s.Move("t1", &pinned, nil); err != nil {
		t.Fatal(err)
	}
	branch := "main"
	if err := gi.Set("t1", gitedits.Info{Branch: &branch}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, ext.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{`"version": 1`, `"sections": [`, `"threadSections": {`, `"git": {`, `"goals": {`}
	at := -1
	for _, k := range keys {
		i := strings.Index(string(b), k)
		if i < 0 || i < at {
			t.Fatalf("%s missing or out of order in\n%s", k, b)
		}
		at = i
	}
}
