package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// goModule writes a small module into a new folder and returns it.
func goModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goplsManager is a manager whose only server is the test's gopls, unconfined.
func goplsManager(t *testing.T, cwd string) *Manager {
	t.Helper()
	gopls := testkit.Gopls(t)
	s := Builtins()[0]
	s.Commands = [][]string{{gopls}}
	m := New(Options{Cwd: cwd, Servers: []Server{s}, Spawn: SandboxSpawner(SandboxOptions{
		Cwd: cwd, CacheDir: filepath.Join(t.TempDir(), "cache"), Environ: os.Environ(),
	})})
	t.Cleanup(m.Close)
	return m
}

var fullAccess = Call{Policy: protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}}

// An edit that calls an undefined function gets gopls's error for it; fixing it clears it.
func TestAfterEditReportsGoplsErrors(t *testing.T) {
	dir := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	m := goplsManager(t, dir)
	main := filepath.Join(dir, "main.go")
	if err := os.WriteFile(main, []byte("package main\n\nfunc main() {\n\tundefinedThing()\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := m.AfterEdit(context.Background(), fullAccess, []string{main})
	text := Format(got, dir, MaxReported)
	if !strings.Contains(text, "main.go:4:2 error undefined: undefinedThing") {
		t.Fatalf("diagnostics after the broken edit:\n%s", text)
	}
	if err := os.WriteFile(main, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := m.AfterEdit(context.Background(), fullAccess, []string{main}); len(got) != 0 {
		t.Fatalf("diagnostics after the fix: %v", got)
	}
}

// A server that is not installed is one warning per session, and no diagnostics.
func TestMissingServerWarnsOnce(t *testing.T) {
	dir := goModule(t, map[string]string{"main.go": "package main\n"})
	s := Builtins()[0]
	s.Commands = [][]string{{"gocodex-no-such-gopls"}}
	m := New(Options{Cwd: dir, Servers: []Server{s}, Spawn: SandboxSpawner(SandboxOptions{Cwd: dir, CacheDir: t.TempDir()})})
	defer m.Close()
	var warnings []string
	call := Call{Policy: fullAccess.Policy, Warn: func(w string) { warnings = append(warnings, w) }}
	for range 2 {
		if got := m.AfterEdit(context.Background(), call, []string{filepath.Join(dir, "main.go")}); got != nil {
			t.Errorf("diagnostics: %v", got)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "gopls is not installed") || !strings.Contains(warnings[0], "go install golang.org/x/tools/gopls@latest") {
		t.Errorf("warnings: %q", warnings)
	}
}
