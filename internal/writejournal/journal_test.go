package writejournal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// at returns a journal whose clock reads t.
func at(home string, t time.Time) *Journal {
	j := Open(home)
	j.now = func() time.Time { return t }
	return j
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A file written while a window over its folder is open is found; one outside the window's
// folders, or written before or after the window, is not.
func TestChangedInsideAWindow(t *testing.T) {
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	now := time.Now()
	w, err := at(home, now.Add(-time.Minute)).Begin([]string{ws}, false)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(ws, "sub", ".codex", "rules", "x.rules")
	write(t, planted)
	elsewhere := filepath.Join(other, ".codex", "config.toml")
	write(t, elsewhere)

	ws1, err := at(home, now.Add(time.Minute)).Read()
	if err != nil {
		t.Fatal(err)
	}
	c, ok, err := ws1.ChangedIn(planted, true)
	if err != nil || !ok || !c.Span.Open || c.Span.Trusted {
		t.Fatalf("planted file: %v %v %+v", ok, err, c)
	}
	if !strings.Contains(c.String(), "not trusted") {
		t.Errorf("reason %q", c)
	}
	if _, ok, _ := ws1.ChangedIn(elsewhere, true); ok {
		t.Error("a file outside the window's folders counts")
	}
	if _, ok, _ := ws1.ChangedIn(filepath.Join(ws, "missing"), true); ok {
		t.Error("a missing file counts")
	}

	// The window closed an hour before the files were written.
	w.j.now = func() time.Time { return now.Add(-time.Hour + time.Minute) }
	old := at(home, now.Add(-time.Hour))
	if _, err := old.Begin([]string{ws}, false); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	// Reading: the first window is [now-1m, now-59m]: ended before it began, so empty; the
	// second is still open (this process) and covers the file.
	ws2, err := at(home, now).Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(ws2.spans) != 2 || ws2.spans[0].Open || !ws2.spans[1].Open {
		t.Fatalf("spans: %+v", ws2.spans)
	}
}

// Windows of trusted sessions count only when asked for.
func TestTrustedWindows(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	now := time.Now()
	if _, err := at(home, now.Add(-time.Minute)).Begin([]string{ws}, true); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(ws, "sub", ".git")
	write(t, marker)
	w, err := at(home, now.Add(time.Minute)).Read()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := w.ChangedIn(marker, true); ok {
		t.Error("a trusted session's window counts for untrustedOnly")
	}
	if c, ok, _ := w.ChangedIn(marker, false); !ok || !c.Span.Trusted {
		t.Errorf("a trusted session's window: %v %+v", ok, c)
	}
	// Sessions that began later than a moment are left out of what was written before it.
	if _, ok, _ := w.Before(now.Add(-2*time.Minute)).ChangedIn(marker, false); ok {
		t.Error("a window that began later counts")
	}
}

// A window whose process is gone is closed by the next reader, and the journal says so.
func TestDeadProcessWindowIsClosed(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to get a finished process id:", err)
	}
	start := time.Now().Add(-time.Hour)
	j := at(home, start)
	j.pid = cmd.Process.Pid
	if _, err := j.Begin([]string{ws}, false); err != nil {
		t.Fatal(err)
	}
	end := start.Add(time.Minute)
	w, err := at(home, end).Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(w.spans) != 1 || w.spans[0].Open || !w.spans[0].To.Equal(end) {
		t.Fatalf("spans: %+v", w.spans)
	}
	data, _ := os.ReadFile(filepath.Join(home, FileName))
	if n := strings.Count(string(data), `"end"`); n != 1 {
		t.Errorf("journal has %d end records:\n%s", n, data)
	}
	// The file written now is after the closed window.
	f := filepath.Join(ws, ".codex", "config.toml")
	write(t, f)
	w, _ = at(home, time.Now()).Read()
	if _, ok, _ := w.ChangedIn(f, true); ok {
		t.Error("a file written after the dead window's end counts")
	}
}

// A symbolic link is judged as the link: a link planted during a window counts even when it
// points at an old file.
func TestLinkIsJudgedAsTheLink(t *testing.T) {
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "old.rules")
	write(t, target)
	if _, err := at(home, time.Now().Add(-time.Minute)).Begin([]string{ws}, false); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(ws, ".codex", "rules", "x.rules")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	w, _ := Open(home).Read()
	if _, ok, _ := w.ChangedIn(link, true); !ok {
		t.Error("a planted link does not count")
	}
}

// A missing journal holds no windows; a torn line is skipped.
func TestMissingAndTornJournal(t *testing.T) {
	home := t.TempDir()
	w, err := Open(home).Read()
	if err != nil || len(w.spans) != 0 {
		t.Fatalf("missing journal: %v %v", w, err)
	}
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(`{"begin":"a","at":"2020-01-01T00:00:00Z","pid":1,"roots":["/"]}`+"\n"+`{"end":"a","at":"20`), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err = Open(home).Read()
	if err != nil || len(w.spans) != 1 {
		t.Fatalf("torn journal: %+v %v", w, err)
	}
}
