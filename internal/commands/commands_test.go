package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAndExpand(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	user, project := Dirs(home, repo)[0], Dirs(home, repo)[1]
	writeFile(t, user, "bugs.md", "---\ndescription: Find bugs\nargument-hint: FILE [FOCUS=...]\n---\nLook for bugs in $1 (then $2). Focus: $FOCUS. All: $ARGUMENTS. Cost $$5.\n")
	writeFile(t, user, "shared.md", "user version")
	writeFile(t, project, "shared.md", "project version")
	writeFile(t, project, "broken.md", "---\ndescription: never closed\n")
	writeFile(t, project, "latin1.md", "caf\xe9")
	writeFile(t, project, "notes.txt", "ignored")
	s, warnings := Load(Dirs(home, repo)...)
	if len(warnings) != 2 || !strings.Contains(strings.Join(warnings, "\n"), "broken.md") || !strings.Contains(strings.Join(warnings, "\n"), "latin1.md") {
		t.Errorf("warnings: %q", warnings)
	}
	var names []string
	for _, c := range s.List() {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "bugs,shared" {
		t.Errorf("commands %v", names)
	}
	bugs, _ := s.Lookup("bugs")
	if bugs.Description != "Find bugs" || bugs.ArgumentHint != "FILE [FOCUS=...]" {
		t.Errorf("front matter %+v", bugs)
	}
	cases := map[string]string{
		`/bugs main.go "the parser" FOCUS=errors`: "Look for bugs in main.go (then the parser). Focus: errors. All: main.go \"the parser\" FOCUS=errors. Cost $5.",
		`/prompts:bugs a.go`:                      "Look for bugs in a.go (then ). Focus: . All: a.go. Cost $5.",
		`/shared`:                                 "project version",
	}
	for in, want := range cases {
		got, ok, err := s.Expand(in)
		if !ok || err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v, %v; want %q", in, got, ok, err, want)
		}
	}
	for _, in := range []string{"/unknown x", "plain text", "/", "$1"} {
		if _, ok, _ := s.Expand(in); ok {
			t.Errorf("Expand(%q) claimed a command", in)
		}
	}
	if _, ok, err := s.Expand(`/bugs "unterminated`); !ok || err == nil {
		t.Errorf("an unclosed quote: %v %v", ok, err)
	}
}

func FuzzExpand(f *testing.F) {
	f.Add("$1 $ARGUMENTS $$ $FOO $", `a "b c" FOO=d`)
	f.Fuzz(func(t *testing.T, body, args string) {
		c := Command{Name: "x", Body: body}
		words, err := splitArgs(args)
		if err != nil {
			return
		}
		_ = c.Expand(args, words)
	})
}
