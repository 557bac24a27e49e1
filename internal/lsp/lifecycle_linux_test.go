package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeManager runs the fake server of fakeserver_test.go for .go files, with a clock the test
// moves.
func fakeManager(t *testing.T, dir string, now *time.Time, env ...string) (*Manager, string) {
	t.Helper()
	record := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := Server{ID: "fake", Commands: [][]string{{exe, fakeServerArg}}, Extensions: []string{".go"}}
	m := New(Options{Cwd: dir, Servers: []Server{s},
		Spawn:    SandboxSpawner(SandboxOptions{Cwd: dir, CacheDir: t.TempDir(), Environ: append(append(os.Environ(), "FAKE_LSP_DIR="+record), env...)}),
		LookPath: func(p string) (string, error) { return p, nil },
		Now:      func() time.Time { return *now },
	})
	return m, filepath.Join(record, "pids")
}

func writeGo(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A server that crashes is reported once, not started again before its backoff has passed,
// then started again; the helper process it started ends with it. Closing the manager ends
// the new server and its helper.
func TestCrashedServerRestartsAfterBackoff(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_700_000_000, 0)
	m, pidsFile := fakeManager(t, dir, &now)
	a := writeGo(t, dir, "a.go", "package a\n")
	crash := writeGo(t, dir, "crash.go", "package a\n")
	var warnings []string
	call := Call{Policy: fullAccess.Policy, Warn: func(w string) { warnings = append(warnings, w) }}

	if got := Format(m.AfterEdit(context.Background(), call, []string{a}), dir, 10); !strings.Contains(got, "a.go:1:1 error fake: package a") {
		t.Fatalf("first edit: %q", got)
	}
	m.AfterEdit(context.Background(), call, []string{crash})
	if got := m.AfterEdit(context.Background(), call, []string{a}); got != nil {
		t.Errorf("a server was used during its backoff: %v", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "language server fake exited (exit status 3)") {
		t.Errorf("warnings after the crash: %q", warnings)
	}
	now = now.Add(time.Second)
	if got := m.AfterEdit(context.Background(), call, []string{a}); len(got) != 1 {
		t.Errorf("after the backoff: %v", got)
	}
	m.Close()
	pids := strings.Fields(readText(t, pidsFile))
	if len(pids) != 4 {
		t.Fatalf("starts recorded: %q", pids)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %s (a server or its helper) outlived the session", pid)
		}
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// alive reports whether pid still runs (a zombie does not count), giving a killed process a
// moment to go.
func alive(pid string) bool {
	for range 50 {
		status, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
		if err != nil || strings.Contains(string(status), "State:\tZ") {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// A server that dies before answering initialize is one warning with its last words, and the
// edit goes on without diagnostics.
func TestServerThatCannotStartWarnsOnce(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_700_000_000, 0)
	m, _ := fakeManager(t, dir, &now, "FAKE_LSP_FAIL=fake: no workspace here")
	defer m.Close()
	a := writeGo(t, dir, "a.go", "package a\n")
	var warnings []string
	call := Call{Policy: fullAccess.Policy, Warn: func(w string) { warnings = append(warnings, w) }}
	for range 2 {
		if got := m.AfterEdit(context.Background(), call, []string{a}); got != nil {
			t.Errorf("diagnostics: %v", got)
		}
		now = now.Add(time.Minute)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "language server fake could not start") || !strings.Contains(warnings[0], "fake: no workspace here") {
		t.Errorf("warnings: %q", warnings)
	}
}

// A command that rewrites a file a server has open is reported on; one that changes nothing
// the servers have open reports nothing and starts nothing.
func TestAfterCommandSeesChangedOpenFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_700_000_000, 0)
	m, _ := fakeManager(t, dir, &now)
	defer m.Close()
	a := writeGo(t, dir, "a.go", "package a\n")
	if got := m.AfterCommand(context.Background(), fullAccess); got != nil {
		t.Errorf("before any server: %v", got)
	}
	m.AfterEdit(context.Background(), fullAccess, []string{a})
	if got := m.AfterCommand(context.Background(), fullAccess); got != nil {
		t.Errorf("nothing changed: %v", got)
	}
	writeGo(t, dir, "a.go", "package b\n")
	writeGo(t, dir, "other.go", "package c\n")
	if got := Format(m.AfterCommand(context.Background(), fullAccess), dir, 10); got != "Language server diagnostics: 1 error, 0 warnings\na.go:1:1 error fake: package b\n" {
		t.Errorf("after the command: %q", got)
	}
}
