package logging

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noEnv is an environment with no GOCODEX_LOG or RUST_LOG.
func noEnv(string) string { return "" }

// openOK opens a log and fails the test on any error.
func openOK(t *testing.T, o Options) *Log {
	t.Helper()
	if o.Getenv == nil {
		o.Getenv = noEnv
	}
	if o.Stderr == nil {
		o.Stderr = &bytes.Buffer{}
	}
	l, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// readFile reads a log file whole.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mode is a path's permission bits.
func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestOpenWritesPrivatelyUnderDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "log")
	l := openOK(t, Options{Dir: dir, Face: "tui"})
	want := filepath.Join(dir, "gocodex-tui.log")
	if l.Path() != want {
		t.Fatalf("Path() = %q, want %q", l.Path(), want)
	}
	l.Logger().Info("session started", "thread", "t-1")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("log directory mode %o, want 700", got)
	}
	if got := mode(t, want); got != 0o600 {
		t.Errorf("log file mode %o, want 600", got)
	}
	text := readFile(t, want)
	for _, part := range []string{"level=INFO", `msg="session started"`, "face=tui", "pid=", "thread=t-1"} {
		if !strings.Contains(text, part) {
			t.Errorf("log line %q lacks %q", text, part)
		}
	}
}

func TestFileNameNamesEachFace(t *testing.T) {
	for face, want := range map[string]string{
		"tui": "gocodex-tui.log", "exec": "gocodex-exec.log", "app-server": "gocodex-app-server.log",
		"mcp-server": "gocodex-mcp-server.log", "proto": "gocodex-proto.log",
	} {
		if got, err := FileName(face); err != nil || got != want {
			t.Errorf("FileName(%q) = %q, %v; want %q", face, got, err, want)
		}
	}
	for _, bad := range []string{"", "../etc", "a/b", "TUI", "tui.log"} {
		if _, err := FileName(bad); err == nil {
			t.Errorf("FileName(%q) accepted a name that is not a face", bad)
		}
	}
}

func TestOpenMakesALooseFilePrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gocodex-exec.log")
	if err := os.WriteFile(path, []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // beat the umask
		t.Fatal(err)
	}
	openOK(t, Options{Dir: dir, Face: "exec"})
	if got := mode(t, path); got != 0o600 {
		t.Errorf("file mode %o after Open, want 600", got)
	}
	if !strings.HasPrefix(readFile(t, path), "old line\n") {
		t.Error("Open lost the file's earlier lines")
	}
}

func TestOpenWithoutAnyDirectoryStillLogs(t *testing.T) {
	var stderr bytes.Buffer
	l, err := Open(Options{Face: "proto", Getenv: noEnv, Stderr: &stderr, StderrLevel: slog.LevelError})
	if err == nil || l.Path() != "" {
		t.Fatalf("Open with no directory: error %v, path %q; want an error and no file", err, l.Path())
	}
	l.Logger().Error("stderr only", "token", "t-secret-1")
	if out := stderr.String(); !strings.Contains(out, "stderr only") || strings.Contains(out, "t-secret-1") {
		t.Errorf("stderr = %q, want the error line with its token masked", out)
	}
}

func TestOpenRefusesAFaceThatIsNotAName(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(Options{Dir: filepath.Join(dir, "log"), Face: "../escape", Getenv: noEnv})
	if err == nil || l.Path() != "" {
		t.Fatalf("Open(face ../escape): error %v, path %q; want an error and no file", err, l.Path())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Open wrote %v for a bad face", entries)
	}
}

func TestNilLogIsUsable(t *testing.T) {
	var l *Log
	l.Logger().Info("dropped")
	if l.Path() != "" || l.Close() != nil {
		t.Error("a nil *Log is not inert")
	}
}

func TestVerboseCopiesEveryLineToStderr(t *testing.T) {
	var stderr bytes.Buffer
	l := openOK(t, Options{Dir: t.TempDir(), Face: "exec", Getenv: env(map[string]string{LevelEnv: "debug"}), Stderr: &stderr, StderrLevel: slog.LevelWarn, Verbose: true})
	l.Logger().Debug("debug detail")
	l.Logger().Info("info line")
	l.Close()
	for name, out := range map[string]string{"stderr": stderr.String(), "file": readFile(t, l.Path())} {
		if !strings.Contains(out, "debug detail") || !strings.Contains(out, "info line") {
			t.Errorf("%s = %q, want both the debug and the info record", name, out)
		}
	}
}

func TestStderrGetsOnlyItsLevel(t *testing.T) {
	var stderr bytes.Buffer
	l := openOK(t, Options{Dir: t.TempDir(), Face: "app-server", Stderr: &stderr, StderrLevel: slog.LevelWarn})
	l.Logger().Info("file only")
	l.Logger().Warn("both")
	l.Close()
	if out := stderr.String(); strings.Contains(out, "file only") || !strings.Contains(out, "both") {
		t.Errorf("stderr = %q, want the warning only", out)
	}
	if out := readFile(t, l.Path()); !strings.Contains(out, "file only") || !strings.Contains(out, "both") {
		t.Errorf("file = %q, want both lines", out)
	}
}

func TestLoggingAfterCloseIsDropped(t *testing.T) {
	l := openOK(t, Options{Dir: t.TempDir(), Face: "exec"})
	l.Close()
	l.Logger().Info("late") // must not panic
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Two opens of one file stand for two gocodex processes: O_APPEND keeps every line whole.
func TestConcurrentWritersKeepEveryLine(t *testing.T) {
	dir := t.TempDir()
	const perWriter = 200
	done := make(chan struct{})
	for w := range 2 {
		l := openOK(t, Options{Dir: dir, Face: "tui"})
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range perWriter {
				l.Logger().Info("line", "writer", w, "i", i, "pad", strings.Repeat("x", 200))
			}
		}()
	}
	<-done
	<-done
	lines := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "gocodex-tui.log")), "\n"), "\n")
	if len(lines) != 2*perWriter {
		t.Fatalf("%d lines, want %d", len(lines), 2*perWriter)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "time=") || !strings.HasSuffix(line, strings.Repeat("x", 200)) {
			t.Fatalf("torn line: %q", line)
		}
	}
}
