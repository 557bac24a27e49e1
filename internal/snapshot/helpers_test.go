package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The git this package runs reads the user's config: give it an empty home.
	home, err := os.MkdirTemp("", "snapshot-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	code := m.Run()
	removeBenchFixtures()
	os.RemoveAll(home)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// kinds of tree the scenarios run on.
type treeKind string

const (
	gitTree   treeKind = "git"
	plainTree treeKind = "plain"
)

func needGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed")
	}
}

// git runs git in dir as the user would, with a fixed identity and no outside config.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(tb testing.TB, root, rel, content string, perm os.FileMode) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		tb.Fatal(err)
	}
}

func read(tb testing.TB, root, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// treeHash hashes every file and symlink under root (outside .git) with its path, its kind,
// its permission bits (all of them when exact, else the executable bit as git keeps it) and
// its bytes; directories count by the paths under them.
func treeHash(tb testing.TB, root string, exact bool) string {
	tb.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		var content []byte
		kind := "file"
		if info.Mode()&fs.ModeSymlink != 0 {
			kind = "link"
			t, err := os.Readlink(path)
			if err != nil {
				return err
			}
			content = []byte(t)
		} else if content, err = os.ReadFile(path); err != nil {
			return err
		}
		perm := info.Mode().Perm()
		if !exact && kind == "file" {
			perm &= 0o100
		}
		if kind == "link" {
			perm = 0
		}
		sum := sha256.Sum256(content)
		lines = append(lines, fmt.Sprintf("%s %s %o %x", filepath.ToSlash(rel), kind, perm, sum))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// userGitState is what the user sees of their repository: status, index bytes, HEAD,
// branches, stash.
func userGitState(tb testing.TB, root string) string {
	tb.Helper()
	index, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(index)
	return strings.Join([]string{
		git(tb, root, "--no-optional-locks", "status", "--porcelain=v2", "--untracked-files=all", "--branch"),
		hex.EncodeToString(sum[:]),
		git(tb, root, "rev-parse", "HEAD"),
		git(tb, root, "for-each-ref", "refs/heads", "refs/tags", "refs/stash"),
	}, "\n")
}

// newTree makes a root of the given kind with a first commit (for git) and a fresh
// CODEX_HOME, and returns both.
func newTree(tb testing.TB, kind treeKind, files map[string]string) (root, home string) {
	tb.Helper()
	root, home = tb.TempDir(), tb.TempDir()
	for rel, content := range files {
		perm := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			perm = 0o755
		}
		write(tb, root, rel, content, perm)
	}
	if kind == gitTree {
		needGit(tb)
		git(tb, root, "init", "-q", "-b", "main")
		git(tb, root, "add", "-A")
		git(tb, root, "commit", "-q", "-m", "initial")
	}
	return root, home
}

func mustOpen(tb testing.TB, home, id, cwd string) *Thread {
	tb.Helper()
	th, err := Open(home, id, cwd)
	if err != nil {
		tb.Fatal(err)
	}
	return th
}

// turn runs one recorded turn whose file work is do.
func turn(tb testing.TB, th *Thread, id string, do func()) {
	tb.Helper()
	ctx := context.Background()
	if err := th.BeginTurn(ctx, id); err != nil {
		tb.Fatal(err)
	}
	do()
	if err := th.EndTurn(ctx, id); err != nil {
		tb.Fatal(err)
	}
}

// gitEnv is this process's environment without any GIT_* variable (a test run from a git hook
// must not point the fixtures' git elsewhere), plus extra.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	return append(env, extra...)
}
