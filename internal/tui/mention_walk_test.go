package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The @ file list leaves out what git's excludes, .gitignore files (nested ones and their
// negations too) and .ignore files leave out, and nothing else: where git decides, it agrees
// with `git ls-files --others --exclude-standard -co`.
func TestMentionWalkHonoursIgnoreFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	write := func(root, path, body string) {
		t.Helper()
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(home, ".config/git/ignore", "*.swp\n")
	write(home, ".gitconfig", "[user]\n\tname = x\n[core]\n\texcludesFile = ~/more-excludes\n")
	write(home, "more-excludes", "*.tmp\n")
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(repo, ".git/info/exclude", "secret.txt\n")
	write(repo, ".gitignore", "build/\n*.log\n!keep.log\n")
	write(repo, "src/.gitignore", "gen_*.go\n")
	for _, f := range []string{"main.go", "notes.swp", "secret.txt", "build/out.bin", "debug.log", "keep.log",
		"src/a.go", "src/gen_x.go", "scratch.tmp", "node_modules/x/index.js", ".github/workflows/ci.yml", "docs/deep/guide.md"} {
		write(repo, f, "x")
	}
	cmd := exec.Command("git", "ls-files", "--others", "--exclude-standard", "-co")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(out))
	got := walkFiles(repo, 1000)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("walk %v\ngit   %v", got, want)
	}
	for _, gone := range []string{"scratch.tmp", "secret.txt", "build/out.bin", "debug.log", "src/gen_x.go"} {
		if slices.Contains(got, gone) {
			t.Errorf("%s is listed", gone)
		}
	}
	// git does not read .ignore files; ripgrep's walker, and so Codex, does.
	write(repo, ".ignore", "docs/\n")
	if got := walkFiles(repo, 1000); slices.Contains(got, "docs/deep/guide.md") || !slices.Contains(got, "main.go") {
		t.Errorf(".ignore not honoured: %v", got)
	}
	// From a subfolder, the root's rules still apply and paths are relative to it.
	if got := walkFiles(filepath.Join(repo, "src"), 1000); !slices.Equal(got, []string{".gitignore", "a.go"}) {
		t.Errorf("from src: %v", got)
	}
	// Outside a repository, .gitignore files still count, as in Codex.
	plain := t.TempDir()
	write(plain, ".gitignore", "tmp/\n")
	write(plain, "tmp/x", "x")
	write(plain, "a", "x")
	if got := walkFiles(plain, 1000); !slices.Equal(got, []string{".gitignore", "a"}) {
		t.Errorf("outside git: %v", got)
	}
	if got := walkFiles(repo, 2); len(got) != 2 {
		t.Errorf("limit 2: %v", got)
	}
}
