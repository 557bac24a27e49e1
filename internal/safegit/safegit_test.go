package safegit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestParseConfigList(t *testing.T) {
	entry := func(scope, origin, key, value string) string {
		return scope + "\x00" + origin + "\x00" + key + "\n" + value + "\x00"
	}
	out := entry("global", "file:/home/u/.gitconfig", "filter.lfs.process", "git-lfs filter-process") +
		entry("local", "file:.git/config", "filter.a.b=c.clean", "evil") +
		entry("local", "file:.git/config", "diff.Tex.textconv", "evil") +
		entry("worktree", "file:.git/config.worktree", "merge.m.driver", "evil") +
		entry("global", "file:/home/u/.gitconfig", "includeif.gitdir:~/work/.path", "~/.gitconfig-work") +
		entry("local", "file:.git/config", "extensions.objectformat", "sha256") +
		"local\x00file:.git/config\x00core.bare\x00" + // a key without a value
		entry("command", "command line:", "safegit.canary", "1")
	cfg, err := parseConfigList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.b=c", "lfs"}; !reflect.DeepEqual(cfg.filters, want) {
		t.Errorf("filters %q, want %q", cfg.filters, want)
	}
	want := [][2]string{
		{"filter.a.b=c.clean", ""}, {"filter.a.b=c.smudge", ""}, {"filter.a.b=c.process", ""}, {"filter.a.b=c.required", "false"},
		{"filter.lfs.clean", ""}, {"filter.lfs.smudge", ""}, {"filter.lfs.process", ""}, {"filter.lfs.required", "false"},
		{"diff.Tex.textconv", ""}, {"diff.Tex.command", ""},
		{"merge.m.driver", ""},
	}
	if !reflect.DeepEqual(cfg.neutralised, want) {
		t.Errorf("neutralised\n%q\nwant\n%q", cfg.neutralised, want)
	}
	if cfg.hashSize != 32 {
		t.Errorf("hash size %d, want 32 for sha256", cfg.hashSize)
	}

	if _, err := parseConfigList([]byte(entry("local", "file:.git/config", "core.bare", "false"))); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "2.31") {
		t.Errorf("a listing without the canary (a git that ignores GIT_CONFIG_COUNT): %v", err)
	}
	for _, inc := range []string{
		entry("local", "file:.git/config", "include.path", "../shared.gitconfig"),
		entry("local", "file:.git/config", "includeIf.onbranch:main.path", "/tmp/x"),
		entry("worktree", "file:.git/config.worktree", "include.path", "x"),
	} {
		_, err := parseConfigList([]byte(inc))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ".git/config") {
			t.Errorf("%q: err %v, want a refusal naming the file", inc, err)
		}
	}
	if _, err := parseConfigList([]byte("local\x00file:x\x00")); err == nil {
		t.Error("a truncated listing was read")
	}
}

// Subcommands and options nobody vetted are refused before any process starts (the
// directory does not even exist).
func TestRefusesUnvetted(t *testing.T) {
	r := New(Options{Dir: filepath.Join(t.TempDir(), "absent")})
	for _, args := range [][]string{
		{"status"}, {"add", "-A"}, {"log", "-p"}, {"show"}, {"blame", "f"}, {"merge", "x"}, {"fetch"}, {"config", "--list"},
		{"diff", "--ext-diff"}, {"diff", "--textconv", "HEAD"}, {"diff", "--ignore-submodules=none"}, {"diff-files", "--output=/tmp/x"},
		{"cat-file", "--textconv", "HEAD:f"}, {"ls-files", "--recurse-submodules"}, {},
	} {
		_, err := r.Output(context.Background(), args...)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("git %q: err %v, want a refusal", args, err)
		}
	}
	// An option after "--" is a path.
	if _, err := r.Output(context.Background(), "diff", "--", "--ext-diff"); errors.Is(err, ErrRefused) {
		t.Errorf("a path named like an option was refused: %v", err)
	}
}

// gitlinks reads every index version git writes, in sha1 and sha256 repositories, and sees a
// split index.
func TestGitlinksReadsEveryIndexVersion(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tc := range []struct {
		name     string
		init     []string
		prepare  [][]string
		hashSize int
		version  byte
		split    bool
	}{
		{name: "v2", hashSize: 20, version: 2},
		{name: "v3 (extended flags)", prepare: [][]string{{"update-index", "--skip-worktree", "dir/a.txt"}}, hashSize: 20, version: 3},
		{name: "v4 (compressed paths)", prepare: [][]string{{"update-index", "--index-version", "4"}}, hashSize: 20, version: 4},
		{name: "sha256", init: []string{"--object-format=sha256"}, hashSize: 32, version: 2},
		{name: "split index", prepare: [][]string{{"update-index", "--split-index"}}, hashSize: 20, version: 2, split: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(args ...string) string {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %q: %v\n%s", args, err, out)
				}
				return string(out)
			}
			run(append([]string{"init", "-q"}, tc.init...)...)
			for _, f := range []string{"dir/a.txt", "dir/deeper/b.txt", "z.txt"} {
				p := filepath.Join(dir, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(f), 0o644)
			}
			run("add", "-A")
			blob := strings.TrimSpace(run("hash-object", "z.txt")) // any object id of the right length
			for _, p := range []string{"dir/sub", "dir/deeper/sub2", "vendor/x"} {
				run("update-index", "--add", "--cacheinfo", "160000,"+blob+","+p)
			}
			for _, args := range tc.prepare {
				run(args...)
			}
			index := filepath.Join(dir, ".git", "index")
			if data, _ := os.ReadFile(index); len(data) < 8 || data[7] != tc.version {
				t.Fatalf("the fixture's index is not version %d", tc.version)
			}
			links, split, err := gitlinks(index, tc.hashSize)
			if err != nil {
				t.Fatal(err)
			}
			if split != tc.split {
				t.Errorf("split %v, want %v", split, tc.split)
			}
			if tc.split {
				return // the entries live in the shared index
			}
			var want []string
			for _, line := range strings.Split(run("ls-files", "-s"), "\n") {
				if mode, path, ok := strings.Cut(line, " "); ok && mode == "160000" {
					want = append(want, path[strings.IndexByte(path, '\t')+1:])
				}
			}
			sort.Strings(links)
			if !reflect.DeepEqual(links, want) || len(want) != 3 {
				t.Errorf("gitlinks %q, want %q", links, want)
			}
		})
	}
}

func TestGitlinksRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	if links, _, err := gitlinks(filepath.Join(dir, "none"), 20); err != nil || links != nil {
		t.Errorf("no index: %q %v", links, err)
	}
	for name, data := range map[string]string{
		"not an index": "hello, this is not an index file at all",
		"version 9":    "DIRC\x00\x00\x00\x09\x00\x00\x00\x00" + strings.Repeat("\x00", 20),
		"truncated":    "DIRC\x00\x00\x00\x02\x00\x00\x00\x05" + strings.Repeat("\x00", 40),
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(p, []byte(data), 0o644)
		if _, _, err := gitlinks(p, 20); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// A nested repository's gitlink stays out of git add while it is a repository; once its .git
// is gone, its files are added as any others.
func TestAddAllTakesTheFilesOfAFormerRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(in string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = in
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run(dir, "init", "-q")
	sub := filepath.Join(dir, "sub")
	run(dir, "init", "-q", sub)
	os.WriteFile(filepath.Join(sub, "f"), []byte("nested\n"), 0o644)
	run(sub, "add", "f")
	run(sub, "commit", "-q", "-m", "nested")
	r := New(Options{Dir: dir, GitDir: filepath.Join(dir, ".git"), WorkTree: dir, Environ: append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")})
	ctx := context.Background()
	if err := r.AddAll(ctx); err != nil {
		t.Fatal(err)
	}
	if out := run(dir, "ls-files", "-s"); !strings.HasPrefix(out, "160000 ") || !strings.HasSuffix(out, "\tsub\n") {
		t.Fatalf("the nested repository was not added as a gitlink: %q", out)
	}
	if err := os.RemoveAll(filepath.Join(sub, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := New(r.opts).AddAll(ctx); err != nil {
		t.Fatal(err)
	}
	if out := run(dir, "ls-files", "-s"); !strings.HasPrefix(out, "100644 ") || !strings.HasSuffix(out, "\tsub/f\n") {
		t.Errorf("the former repository's files were not added: %q", out)
	}
}

func TestCloneRefusesOptionsAndOptionLikeNames(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"clone", "--upload-pack=touch /tmp/x", "src", "dst"},
		{"clone", "-u", "touch /tmp/x", "src", "dst"},
		{"clone", "--template=/tmp", "src", "dst"},
		{"clone", "--config=core.hooksPath=/tmp", "src", "dst"},
		{"clone", "--recurse-submodules", "src", "dst"},
		{"checkout", "--recurse-submodules", "main"},
	} {
		if _, err := New(Options{Dir: t.TempDir()}).Output(ctx, args...); !errors.Is(err, ErrRefused) {
			t.Errorf("git %v: %v, want a refusal", args, err)
		}
	}
	if _, err := CloneAt(ctx, "--upload-pack=x", t.TempDir(), ""); !errors.Is(err, ErrRefused) {
		t.Errorf("a repository named like an option: %v", err)
	}
}
