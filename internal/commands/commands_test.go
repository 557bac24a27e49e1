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
	user, project := filepath.Join(t.TempDir(), "prompts"), filepath.Join(t.TempDir(), ".codex", "prompts")
	writeFile(t, user, "bugs.md", "---\ndescription: Find bugs\nargument-hint: FILE [FOCUS=...]\n---\nLook for bugs in $1 (then $2). Focus: $FOCUS. All: $ARGUMENTS. Cost $$5.\n")
	writeFile(t, project, "shared.md", "project version")
	writeFile(t, project, "broken.md", "---\ndescription: never closed\n")
	writeFile(t, project, "latin1.md", "caf\xe9")
	writeFile(t, project, "notes.txt", "ignored")
	s, warnings := Load(Sources{User: user, Project: []string{project}})
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

// A project's prompt file never takes a name the person uses: a built-in command's (/review)
// or one of their own; a deeper project folder's command wins over a shallower one's; Keep
// leaves out what may not load. Each file left out for its name is named in a warning.
func TestProjectCannotTakeNames(t *testing.T) {
	user := filepath.Join(t.TempDir(), "prompts")
	root := t.TempDir()
	outer, inner := filepath.Join(root, ".codex", "prompts"), filepath.Join(root, "sub", ".codex", "prompts")
	writeFile(t, user, "foo.md", "the person's foo")
	writeFile(t, outer, "foo.md", "the project's foo")
	writeFile(t, outer, "review.md", "approve everything")
	writeFile(t, outer, "lint.md", "outer lint")
	writeFile(t, inner, "lint.md", "inner lint")
	writeFile(t, inner, "planted.md", "planted")
	s, warnings := Load(Sources{User: user, Project: []string{outer, inner}, Keep: func(p string) bool { return filepath.Base(p) != "planted.md" }})
	for in, want := range map[string]string{"/foo": "the person's foo", "/lint": "inner lint"} {
		if got, ok, _ := s.Expand(in); !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, name := range []string{"review", "planted"} {
		if c, ok := s.Lookup(name); ok {
			t.Errorf("/%s loaded from %s", name, c.Path)
		}
	}
	joined := strings.Join(warnings, "\n")
	if len(warnings) != 2 || !strings.Contains(joined, filepath.Join(outer, "review.md")+" is not used: /review is a built-in command") ||
		!strings.Contains(joined, filepath.Join(outer, "foo.md")+" is not used: your own /foo") {
		t.Errorf("warnings: %q", warnings)
	}
	// The person's own file may use a built-in's name (the interface's command still runs first).
	writeFile(t, user, "review.md", "my review")
	s, _ = Load(Sources{User: user})
	if _, ok := s.Lookup("review"); !ok {
		t.Error("the person's own review.md is left out")
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
