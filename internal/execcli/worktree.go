package execcli

import (
	"context"

	"github.com/gocodex/gocodex/internal/host/worktree"
)

// managedWorktree creates the worktree of --worktree (nil without it) and moves the session
// into it: -C, or the process's folder, maps to the same folder of the worktree.
func managedWorktree(ctx context.Context, opts *RunOptions) (*worktree.Managed, error) {
	if !opts.Worktree {
		return nil, nil
	}
	m, err := worktree.ForSession(ctx, opts.Flags.Cd)
	if err != nil {
		return nil, err
	}
	opts.Flags.Cd = m.Cwd
	return m, nil
}
