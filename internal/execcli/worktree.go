package execcli

import (
	"context"
	"os"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/worktree"
)

// managedWorktree creates the worktree of --worktree (nil without it) and moves the session
// into it: -C, or the process's folder, maps to the same folder of the worktree.
func managedWorktree(ctx context.Context, opts *RunOptions) (*worktree.Managed, error) {
	if !opts.Worktree {
		return nil, nil
	}
	home, err := config.CodexHome(os.Getenv)
	if err != nil {
		return nil, err
	}
	cwd := opts.Flags.Cd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	m, err := worktree.Create(ctx, home, cwd)
	if err != nil {
		return nil, err
	}
	opts.Flags.Cd = m.Cwd
	return m, nil
}
