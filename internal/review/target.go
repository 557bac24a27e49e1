package review

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gocodex/gocodex/internal/safegit"
	"github.com/gocodex/gocodex/protocol"
)

// Check refuses a target that cannot be reviewed before any model is called: empty
// instructions or branch, an unknown branch or commit. For a base branch it returns the merge
// base of HEAD and the branch ("" when they share no history).
func Check(ctx context.Context, cwd string, t protocol.ReviewTarget) (mergeBase string, err error) {
	switch t.Type {
	case protocol.ReviewUncommitted:
		return "", nil
	case protocol.ReviewCustom:
		if strings.TrimSpace(t.Instructions) == "" {
			return "", errors.New("instructions must not be empty")
		}
		return "", nil
	case protocol.ReviewBaseBranch:
		if strings.TrimSpace(t.Branch) == "" {
			return "", errors.New("branch must not be empty")
		}
		if _, err := git(ctx, cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", t.Branch+"^{commit}"); err != nil {
			return "", fmt.Errorf("cannot review against branch %q: %w", t.Branch, notFound(err, "no such branch in "+cwd))
		}
		mb, err := git(ctx, cwd, "merge-base", "HEAD", "--end-of-options", t.Branch)
		if err != nil {
			return "", nil
		}
		return mb, nil
	case protocol.ReviewCommit:
		if strings.TrimSpace(t.Sha) == "" {
			return "", errors.New("sha must not be empty")
		}
		if _, err := git(ctx, cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", t.Sha+"^{commit}"); err != nil {
			return "", fmt.Errorf("cannot review commit %q: %w", t.Sha, notFound(err, "no such commit in "+cwd))
		}
		return "", nil
	}
	return "", fmt.Errorf("unknown review target %q", t.Type)
}

// notFound turns git's silent failure into the reason a person can act on.
func notFound(err error, reason string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return errors.New(reason)
	}
	return err
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := safegit.New(safegit.Options{Dir: dir}).Output(ctx, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
