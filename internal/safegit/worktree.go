package safegit

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
)

// ErrNotWorkTree: the directory is not inside a git work tree.
var ErrNotWorkTree = errors.New("not inside a git work tree")

// WorkTreeDiff is the work tree's changes against HEAD (against the index before the first
// commit) and the untracked files that are not ignored: the TUI's /diff.
func (r *Repo) WorkTreeDiff(ctx context.Context) (diff string, untracked []string, err error) {
	if _, err := r.Output(ctx, "rev-parse", "--is-inside-work-tree"); err != nil {
		return "", nil, ErrNotWorkTree
	}
	out, err := r.Output(ctx, "diff", "--no-color", "HEAD", "--")
	if err != nil {
		// No commit yet: the work tree against the index.
		if out, err = r.Output(ctx, "diff", "--no-color"); err != nil {
			return "", nil, err
		}
	}
	untracked, err = r.Untracked(ctx)
	return string(out), untracked, err
}

// Untracked lists the untracked files that are not ignored, relative to the Repo's Dir.
func (r *Repo) Untracked(ctx context.Context) ([]string, error) {
	out, err := r.Output(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files, nil
}

// DiffToRemote is the binary diff of the work tree, untracked files included, against the
// closest commit the upstream has: the merge base with the upstream branch, else HEAD (the
// app-server's gitDiffToRemote).
func (r *Repo) DiffToRemote(ctx context.Context) (sha, diff string, err error) {
	out, err := r.Output(ctx, "merge-base", "HEAD", "@{upstream}")
	if err != nil {
		if out, err = r.Output(ctx, "rev-parse", "--verify", "HEAD"); err != nil {
			return "", "", err
		}
	}
	sha = strings.TrimSpace(string(out))
	d, err := r.Output(ctx, "diff", "--binary", sha, "--")
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.Write(d)
	untracked, err := r.Untracked(ctx)
	if err != nil {
		return "", "", err
	}
	for _, f := range untracked {
		d, err := r.Output(ctx, "diff", "--binary", "--no-index", "--", "/dev/null", f)
		switch {
		case errors.Is(err, ErrRefused):
			return "", "", err
		case differs(err):
			b.Write(d)
		} // else the file went away since it was listed

	}
	return sha, b.String(), nil
}

// differs is true for git diff --no-index's exit: 1 when the files differ, 0 when not.
func differs(err error) bool {
	var ee *exec.ExitError
	return err == nil || errors.As(err, &ee) && ee.ExitCode() == 1
}
