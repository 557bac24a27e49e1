package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/internal/gitmarker"
)

// gitStore snapshots a git work tree as trees written through a private index.
type gitStore struct {
	root, gitDir string
	// index is the private index file in the journal dir; seeded from the user's index so
	// git's stat cache spares re-hashing unchanged files.
	index string
	// refPrefix is refs/gocodex/snapshots/<thread-id>/.
	refPrefix string
	// exclude are pathspecs kept out of the snapshots (CODEX_HOME inside the work tree).
	exclude []string
}

// gitConfig neutralises settings that would make snapshotting slow, chatty or write into
// the user's repository beyond objects: no fsmonitor daemon, no split index (it writes a
// shared index into .git), no auto gc, no advice about embedded repositories.
var gitConfig = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.splitIndex=false",
	"-c", "gc.auto=0",
	"-c", "advice.addEmbeddedRepo=false",
}

// gitEnv is the caller's environment without any GIT_* variable (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE... from the caller must not redirect our commands), plus extra.
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

// runGit runs git with a clean environment and returns its stdout.
func runGit(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, gitConfig...), args...)...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("snapshot: git %s: %s", args[0], msg)
	}
	return out, nil
}

// findGitRoot returns the work tree top and the absolute git dir of cwd's repository; ok
// is false when cwd is not in a git work tree or git is not installed. It reads the .git
// marker itself rather than asking git: opening a thread's snapshots costs no process.
func findGitRoot(ctx context.Context, cwd string) (root, gitDir string, ok bool, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", false, nil
	}
	root, ok = gitMarkerDir(cwd)
	if !ok {
		return "", "", false, nil
	}
	marker := filepath.Join(root, ".git")
	fi, err := os.Lstat(marker)
	if err != nil {
		return "", "", false, fmt.Errorf("snapshot: %w", err)
	}
	if fi.IsDir() {
		return root, marker, true, nil
	}
	// A linked worktree's or submodule's .git file: "gitdir: <path>".
	data, err := os.ReadFile(marker)
	if err != nil {
		return "", "", false, fmt.Errorf("snapshot: %w", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !found || strings.TrimSpace(dir) == "" {
		return "", "", false, fmt.Errorf("snapshot: %s does not name a git dir", marker)
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return root, filepath.Clean(dir), true, nil
}

// gitMarkerDir is the nearest directory from cwd up that holds a repository's .git.
func gitMarkerDir(cwd string) (string, bool) {
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		if gitmarker.Exists(os.Stat, dir, ".git") {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

func (g *gitStore) env() []string { return gitEnv("GIT_INDEX_FILE=" + g.index) }

func (g *gitStore) git(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	return runGit(ctx, g.root, g.env(), stdin, append([]string{"--git-dir=" + g.gitDir, "--work-tree=" + g.root}, args...)...)
}

func (g *gitStore) exactPerm() bool { return false }

func (g *gitStore) snapshot(ctx context.Context) (string, error) {
	// A snapshot cut off by its context leaves git's lock on the private index; the thread's
	// lock is held, so no git of ours is using it now.
	if err := os.Remove(g.index + ".lock"); err != nil && !os.IsNotExist(err) {
		return "", fmt.Errorf("snapshot: remove a stale lock on the private index: %w", err)
	}
	if _, err := os.Stat(g.index); os.IsNotExist(err) {
		if err := g.seed(ctx); err != nil {
			return "", err
		}
	}
	if _, err := g.git(ctx, nil, append([]string{"add", "--all", "--", "."}, g.exclude...)...); err != nil {
		return "", err
	}
	out, err := g.git(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	// git writes the index with the umask's bits; the journal's files stay private.
	if err := os.Chmod(g.index, 0o600); err != nil {
		return "", fmt.Errorf("snapshot: private index: %w", err)
	}
	id := strings.TrimSpace(string(out))
	if !validSnapshotID(id) {
		return "", fmt.Errorf("snapshot: git write-tree printed %q, not a tree id", out)
	}
	return id, nil
}

// seed starts the private index from a copy of the user's, then clears the entries' assume-
// unchanged and skip-worktree bits: with them git add would not look at those files, and a
// turn's change to them would go unrecorded.
func (g *gitStore) seed(ctx context.Context) error {
	if err := seedIndex(filepath.Join(g.gitDir, "index"), g.index); err != nil {
		return err
	}
	if _, err := os.Stat(g.index); err != nil {
		return nil
	}
	out, err := g.git(ctx, nil, "ls-files", "-v", "-z")
	if err != nil {
		return err
	}
	// Each record is "<tag> <path>": lowercase tags are assume-unchanged, S (or s) is
	// skip-worktree. update-index takes one such flag per run.
	var assumed, skipped bytes.Buffer
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 3 {
			continue
		}
		if rec[0] >= 'a' && rec[0] <= 'z' {
			assumed.Write(rec[2:])
			assumed.WriteByte(0)
		}
		if rec[0] == 'S' || rec[0] == 's' {
			skipped.Write(rec[2:])
			skipped.WriteByte(0)
		}
	}
	for flag, paths := range map[string]*bytes.Buffer{"--no-assume-unchanged": &assumed, "--no-skip-worktree": &skipped} {
		if paths.Len() == 0 {
			continue
		}
		if _, err := g.git(ctx, paths, "update-index", flag, "-z", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

// seedIndex copies the user's index (when there is one) to the private index path; the copy
// only warms git's stat cache, so a missing user index is fine.
func seedIndex(from, to string) error {
	data, err := os.ReadFile(from)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("snapshot: read the repository's index: %w", err)
	}
	return writeFileAtomic(to, data, 0o600)
}

func (g *gitStore) diff(ctx context.Context, a, b string) (map[string]delta, error) {
	out := map[string]delta{}
	if a == b {
		return out, nil
	}
	raw, err := g.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--full-index", a, b)
	if err != nil {
		return nil, err
	}
	// Each record is ":oldmode newmode oldid newid status\0path\0".
	fields := bytes.Split(raw, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		head := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		path := string(fields[i+1])
		if len(head) != 5 {
			return nil, fmt.Errorf("snapshot: git diff-tree printed a record %q this package does not read", fields[i])
		}
		oldE, okOld := gitEntry(head[0], head[2])
		newE, okNew := gitEntry(head[1], head[3])
		if !okOld || !okNew {
			continue // a submodule or nested repository: out of scope
		}
		if err := checkRelPath(path); err != nil {
			return nil, err
		}
		out[path] = delta{Path: path, Old: oldE, New: newE}
	}
	return out, nil
}

// gitEntry reads a mode and id from diff-tree; ok is false for gitlinks (submodules).
func gitEntry(mode, id string) (entry, bool) {
	switch mode {
	case "000000":
		return entry{}, true
	case "100644", "100664":
		return entry{Kind: kindFile, Perm: 0o644, ID: id}, true
	case "100755":
		return entry{Kind: kindFile, Perm: 0o755, ID: id}, true
	case "120000":
		return entry{Kind: kindSymlink, Perm: 0o777, ID: id}, true
	}
	return entry{}, false
}

// read returns regular files as git would check them out (through the repository's
// filters, e.g. eol or LFS; without any, the bytes exactly) and symlink targets as stored.
func (g *gitStore) read(ctx context.Context, entries map[string]entry) (map[string][]byte, error) {
	out := make(map[string][]byte, len(entries))
	var links []string
	for path, e := range entries {
		switch e.Kind {
		case kindFile:
			data, err := g.git(ctx, nil, "cat-file", "--filters", "--path="+path, e.ID)
			if err != nil {
				return nil, err
			}
			out[path] = data
		case kindSymlink:
			links = append(links, path)
		}
	}
	if len(links) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, p := range links {
		in.WriteString(entries[p].ID + "\n")
	}
	raw, err := g.git(ctx, &in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, p := range links {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("snapshot: git cat-file: short output")
		}
		f := strings.Fields(head)
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("snapshot: git cat-file: object %s of %s: %q", entries[p].ID, p, strings.TrimSpace(head))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("snapshot: git cat-file: bad size in %q", head)
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("snapshot: git cat-file: short output for %s", p)
		}
		out[p] = data[:size]
	}
	return out, nil
}

func (g *gitStore) pin(ctx context.Context, name, id string) error {
	_, err := g.git(ctx, nil, "update-ref", g.refPrefix+name, id)
	return err
}

func (g *gitStore) unpin(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&in, "delete %s%s\n", g.refPrefix, n)
	}
	_, err := g.git(ctx, &in, "update-ref", "--stdin")
	return err
}

// release has nothing to do: unreferenced objects go with the repository's next gc.
func (g *gitStore) release(context.Context, []string) error { return nil }

// pruneRefs deletes every ref under the thread's prefix.
func (g *gitStore) pruneRefs(ctx context.Context) error {
	out, err := runGit(ctx, "/", g.env(), nil, "--git-dir="+g.gitDir, "for-each-ref", "--format=%(refname)", strings.TrimSuffix(g.refPrefix, "/"))
	if err != nil {
		return err
	}
	var in bytes.Buffer
	for _, ref := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if ref != "" {
			fmt.Fprintf(&in, "delete %s\n", ref)
		}
	}
	if in.Len() == 0 {
		return nil
	}
	_, err = runGit(ctx, "/", g.env(), &in, "--git-dir="+g.gitDir, "update-ref", "--stdin")
	return err
}

// checkRelPath refuses a path that could leave the root.
func checkRelPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") {
		return fmt.Errorf("snapshot: refusing path %q outside the root", p)
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("snapshot: refusing path %q outside the root", p)
		}
	}
	return nil
}

// insideGitMarker reports whether cwd or a parent holds a real .git (the sandbox's empty
// placeholders do not count, as for git itself).
func insideGitMarker(cwd string) bool {
	_, ok := gitMarkerDir(cwd)
	return ok
}
