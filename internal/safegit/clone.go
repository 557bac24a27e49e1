package safegit

import (
	"context"
	"fmt"
	"strings"
)

// CloneAt makes dst a fresh clone of src (a local path, file:// or https URL) with ref checked
// out, detached; "" is the source's HEAD. A ref that is a branch of the source is found as
// the clone's origin/<ref>. It returns the commit checked out. The source repository is only
// read: the clone has its own objects (hard links, for a local path) and configuration.
func CloneAt(ctx context.Context, src, dst, ref string) (commit string, err error) {
	if strings.HasPrefix(src, "-") || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("safegit: a repository or ref may not start with '-' (%q, %q): %w", src, ref, ErrRefused)
	}
	if _, err := New(Options{}).Output(ctx, "clone", "--", src, dst); err != nil {
		return "", err
	}
	clone := New(Options{Dir: dst})
	if ref == "" {
		ref = "HEAD"
	}
	sha, err := clone.Output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		sha, err = clone.Output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", "origin/"+ref+"^{commit}")
		if err != nil {
			return "", fmt.Errorf("ref %q is not a commit, tag or branch of %s", ref, src)
		}
	}
	commit = strings.TrimSpace(string(sha))
	if _, err := clone.Output(ctx, "checkout", "--detach", commit); err != nil {
		return "", err
	}
	return commit, nil
}
