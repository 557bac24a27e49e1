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
	"github.com/gocodex/gocodex/internal/safegit"
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

// repo is git on the work tree with the private index, for one operation (it reads the
// repository's configuration once, when a command first needs it).
func (g *gitStore) repo() *safegit.Repo {
	return safegit.New(safegit.Options{Dir: g.root, GitDir: g.gitDir, WorkTree: g.root, IndexFile: g.index})
}

// refs is git on the repository's refs alone (Prune has no work tree).
func (g *gitStore) refs() *safegit.Repo {
	return safegit.New(safegit.Options{Dir: "/", GitDir: g.gitDir})
}

// gitErr names the store in an error of safegit.
func gitErr(err error) error { return fmt.Errorf("snapshot: %w", err) }

func (g *gitStore) exactPerm() bool { return false }

func (g *gitStore) snapshot(ctx context.Context) (string, error) {
	// A snapshot cut off by its context leaves git's lock on the private index; the thread's
	// lock is held, so no git of ours is using it now.
	if err := os.Remove(g.index + ".lock"); err != nil && !os.IsNotExist(err) {
		return "", fmt.Errorf("snapshot: remove a stale lock on the private index: %w", err)
	}
	r := g.repo()
	if _, err := os.Stat(g.index); os.IsNotExist(err) {
		if err := g.seed(ctx, r); err != nil {
			return "", err
		}
	}
	if err := r.AddAll(ctx, append([]string{"."}, g.exclude...)...); err != nil {
		return "", gitErr(err)
	}
	out, err := r.Output(ctx, "write-tree")
	if err != nil {
		return "", gitErr(err)
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
// turn's change to them would go unrecorded. The entries of files a filter driver applies to
// go: the user's index has them as the driver cleaned them, and the snapshots, which run no
// driver, keep the bytes as they are (git add hashes them again).
func (g *gitStore) seed(ctx context.Context, r *safegit.Repo) error {
	if err := seedIndex(filepath.Join(g.gitDir, "index"), g.index); err != nil {
		return err
	}
	if _, err := os.Stat(g.index); err != nil {
		return nil
	}
	if err := g.dropFiltered(ctx, r); err != nil {
		return err
	}
	out, err := r.Output(ctx, "ls-files", "-v", "-z")
	if err != nil {
		return gitErr(err)
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
		if _, err := r.OutputStdin(ctx, paths, "update-index", flag, "-z", "--stdin"); err != nil {
			return gitErr(err)
		}
	}
	return nil
}

// dropFiltered removes from the private index the entries whose filter attribute is
// specified, when the configuration defines any filter driver at all.
func (g *gitStore) dropFiltered(ctx context.Context, r *safegit.Repo) error {
	filters, err := r.Filters(ctx)
	if err != nil || len(filters) == 0 {
		return err
	}
	out, err := r.Output(ctx, "ls-files", "-z", "--", ".", ":(exclude,attr:!filter)")
	if err != nil || len(out) == 0 {
		return err
	}
	if _, err := r.OutputStdin(ctx, bytes.NewReader(out), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
		return gitErr(err)
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
	raw, err := g.repo().Output(ctx, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--full-index", a, b)
	if err != nil {
		return nil, gitErr(err)
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

// read returns regular files as git would check them out with git's own conversions (eol,
// ident, working-tree-encoding; without any, the bytes exactly) but no filter driver (the
// snapshots hold what was in the tree) and symlink targets as stored.
func (g *gitStore) read(ctx context.Context, entries map[string]entry) (map[string][]byte, error) {
	out := make(map[string][]byte, len(entries))
	var links []string
	r := g.repo()
	for path, e := range entries {
		switch e.Kind {
		case kindFile:
			data, err := r.Output(ctx, "cat-file", "--filters", "--path="+path, e.ID)
			if err != nil {
				return nil, gitErr(err)
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
	raw, err := r.OutputStdin(ctx, &in, "cat-file", "--batch")
	if err != nil {
		return nil, gitErr(err)
	}
	br := bufio.NewReader(bytes.NewReader(raw))
	for _, p := range links {
		head, err := br.ReadString('\n')
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
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("snapshot: git cat-file: short output for %s", p)
		}
		out[p] = data[:size]
	}
	return out, nil
}

func (g *gitStore) pin(ctx context.Context, name, id string) error {
	if _, err := g.refs().Output(ctx, "update-ref", g.refPrefix+name, id); err != nil {
		return gitErr(err)
	}
	return nil
}

func (g *gitStore) unpin(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&in, "delete %s%s\n", g.refPrefix, n)
	}
	if _, err := g.refs().OutputStdin(ctx, &in, "update-ref", "--stdin"); err != nil {
		return gitErr(err)
	}
	return nil
}

// release has nothing to do: unreferenced objects go with the repository's next gc.
func (g *gitStore) release(context.Context, []string) error { return nil }

// pruneRefs deletes every ref under the thread's prefix.
func (g *gitStore) pruneRefs(ctx context.Context) error {
	r := g.refs()
	out, err := r.Output(ctx, "for-each-ref", "--format=%(refname)", strings.TrimSuffix(g.refPrefix, "/"))
	if err != nil {
		return gitErr(err)
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
	if _, err := r.OutputStdin(ctx, &in, "update-ref", "--stdin"); err != nil {
		return gitErr(err)
	}
	return nil
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
