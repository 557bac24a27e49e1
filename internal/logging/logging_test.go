package logging

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFileModeAppendAndLevel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	for i, want := range []string{"first", "second"} {
		l, err := Open(Options{Dir: dir, Face: "exec", Getenv: env(map[string]string{LevelEnv: "warn"})})
		if err != nil {
			t.Fatal(err)
		}
		l.Logger().Info("not at warn", "i", i)
		l.Logger().Warn(want)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "gocodex-exec.log")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "msg=first") || !strings.Contains(string(b), "msg=second") || strings.Contains(string(b), "not at warn") {
		t.Errorf("log:\n%s", b)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), mode, err)
		}
	}
}

func TestLevelFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want slog.Level
	}{
		{nil, slog.LevelInfo},
		{map[string]string{LevelEnv: "debug"}, slog.LevelDebug},
		{map[string]string{LevelEnv: "ERROR", "RUST_LOG": "debug"}, slog.LevelError},
		{map[string]string{"RUST_LOG": "warn"}, slog.LevelWarn},
		{map[string]string{"RUST_LOG": "codex_core=debug"}, slog.LevelDebug},
		{map[string]string{"RUST_LOG": "nonsense"}, slog.LevelInfo},
	} {
		if got := Level(env(tc.env)); got != tc.want {
			t.Errorf("%v: level %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestSecretsRedacted greps the written file for every secret logged.
func TestSecretsRedacted(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	l, err := Open(Options{Dir: dir, Face: "app-server", Getenv: env(nil), Stderr: &stderr, Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"sk-proj-abcdefghijklmnop", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "tok-plain-123", "hunter2"}
	lg := l.Logger()
	lg.Info("calling with Authorization: Bearer tok-plain-123")
	lg.Info("key", "api_key", "hunter2", "url", "https://x/?k=sk-proj-abcdefghijklmnop")
	lg.Info("jwt", slog.Group("auth", slog.String("id_token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"), slog.String("note", "fine")))
	lg.Error("failed", "err", errors.New("401 for sk-proj-abcdefghijklmnop"))
	l.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "gocodex-app-server.log"))
	for _, out := range []string{string(b), stderr.String()} {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("secret %q in log:\n%s", s, out)
			}
		}
		if !strings.Contains(out, Redacted) || !strings.Contains(out, "note=fine") {
			t.Errorf("log:\n%s", out)
		}
	}
}

func TestUnwritableDirectoryStillLogs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	l, err := Open(Options{Dir: filepath.Join(file, "log"), Face: "exec", Stderr: &stderr, Verbose: true})
	if err == nil {
		t.Fatal("no error for a log directory under a file")
	}
	l.Logger().Warn("still here")
	if !strings.Contains(stderr.String(), "still here") {
		t.Errorf("stderr %q", stderr.String())
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
}
