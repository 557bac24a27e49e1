package logging

import (
	"log/slog"
	"os"
	"strings"
	"testing"
)

func TestLevelWordsAndProblems(t *testing.T) {
	cases := []struct {
		gocodex, rust string
		want          slog.Level
		problem       bool
	}{
		{gocodex: "TRACE", want: slog.LevelDebug},
		{gocodex: "warning", want: slog.LevelWarn},
		{gocodex: "off", want: levelOff},
		{gocodex: "loud", want: slog.LevelInfo, problem: true},
		{gocodex: "loud", rust: "error", want: slog.LevelError, problem: true},
		{rust: "info,codex_core=debug", want: slog.LevelDebug},
		{rust: "codex_core=debug,error", want: slog.LevelError},
	}
	for _, c := range cases {
		getenv := env(map[string]string{LevelEnv: c.gocodex, "RUST_LOG": c.rust})
		if got, err := Level(getenv), levelProblem(getenv); got != c.want || (err != nil) != c.problem {
			t.Errorf("GOCODEX_LOG=%q RUST_LOG=%q: level %v, problem %v; want %v, problem %v", c.gocodex, c.rust, got, err, c.want, c.problem)
		}
	}
}

func TestOpenHonoursTheLevel(t *testing.T) {
	cases := []struct {
		env       map[string]string
		kept, cut string
	}{
		{map[string]string{"GOCODEX_LOG": "warn"}, "WARN", "INFO"},
		{map[string]string{"GOCODEX_LOG": "debug"}, "DEBUG", ""},
		{map[string]string{"RUST_LOG": "debug"}, "DEBUG", ""},
		{map[string]string{"RUST_LOG": "error"}, "ERROR", "WARN"},
		{map[string]string{"GOCODEX_LOG": "off"}, "", "ERROR"},
	}
	for _, c := range cases {
		l := openOK(t, Options{Dir: t.TempDir(), Face: "exec", Getenv: env(c.env)})
		log := l.Logger()
		log.Debug("DEBUG-record")
		log.Info("INFO-record")
		log.Warn("WARN-record")
		log.Error("ERROR-record")
		l.Close()
		text := readFile(t, l.Path())
		if c.kept != "" && !strings.Contains(text, c.kept+"-record") {
			t.Errorf("%v: %s record missing:\n%s", c.env, c.kept, text)
		}
		if c.cut != "" && strings.Contains(text, c.cut+"-record") {
			t.Errorf("%v: %s record written:\n%s", c.env, c.cut, text)
		}
	}
}

func TestOpenReportsABadLevelAndStillLogs(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir(), Face: "exec", Getenv: env(map[string]string{"GOCODEX_LOG": "chatty"})})
	if err == nil || !strings.Contains(err.Error(), `GOCODEX_LOG="chatty"`) {
		t.Fatalf("Open error = %v, want one naming the bad GOCODEX_LOG", err)
	}
	defer l.Close()
	l.Logger().Info("kept at info")
	l.Close()
	b, _ := os.ReadFile(l.Path())
	if !strings.Contains(string(b), "kept at info") {
		t.Errorf("file = %q, want the info record", b)
	}
}
