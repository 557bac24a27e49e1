package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// /status and /diff are the UI's own commands, not text for the model.
func TestTUIStatusAndDiff(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.Workdir, "fresh.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := e.startTUI("-a", "never", "-s", "read-only")
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("/status\r")
	pos = s.screen.waitFor(t, "Custom (never, read-only)", pos)
	pos = s.screen.waitFor(t, "Collaboration mode: Default", pos)
	s.typeKeys("/diff\r")
	pos = s.screen.waitFor(t, "new file (untracked): fresh.txt", pos)
	s.quit(pos)
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: a UI command went to the model", n)
	}
}
