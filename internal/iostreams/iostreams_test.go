package iostreams

import (
	"os"
	"testing"
)

// --color always/never decide; auto colours a terminal unless NO_COLOR is set.
func TestColor(t *testing.T) {
	s, _, _ := Test("")
	env := map[string]string{}
	s.Getenv = func(k string) string { return env[k] }
	for _, tc := range []struct {
		choice   string
		terminal bool
		noColor  string
		want     bool
	}{
		{"always", false, "", true},
		{"never", true, "", false},
		{"auto", true, "", true},
		{"", true, "", true},
		{"auto", false, "", false},
		{"auto", true, "1", false},
	} {
		s.SetTerminal(false, tc.terminal, tc.terminal)
		env["NO_COLOR"] = tc.noColor
		if got := s.ColorStderr(tc.choice); got != tc.want {
			t.Errorf("ColorStderr(%q) terminal=%v NO_COLOR=%q: %v, want %v", tc.choice, tc.terminal, tc.noColor, got, tc.want)
		}
		if got := s.ColorStdout(tc.choice); got != tc.want {
			t.Errorf("ColorStdout(%q) terminal=%v NO_COLOR=%q: %v, want %v", tc.choice, tc.terminal, tc.noColor, got, tc.want)
		}
	}
}

// Buffers and files that are not terminals are not terminals; Test streams say so too.
func TestTerminalDetection(t *testing.T) {
	s, out, _ := Test("in")
	if s.IsStdinTerminal() || s.IsStdoutTerminal() || s.IsStderrTerminal() {
		t.Error("test streams claim a terminal")
	}
	s.SetTerminal(true, false, true)
	if !s.IsStdinTerminal() || s.IsStdoutTerminal() || !s.IsStderrTerminal() {
		t.Error("SetTerminal not honoured")
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(out) || IsTerminal(nil) || IsTerminal((*os.File)(nil)) {
		t.Error("a file, a buffer or nil taken for a terminal")
	}
	if (&IOStreams{In: f}).IsStdinTerminal() {
		t.Error("a regular file as stdin taken for a terminal")
	}
}
