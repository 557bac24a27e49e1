package uicommands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/host/worktree"
	"github.com/gocodex/gocodex/protocol"
)

// WorktreeThread makes a managed worktree of the repository cfg.Cwd is in (as --worktree
// does) and starts a thread there: a fork of fromThreadID, or a new one when it is "". The
// worktree records the thread as its owner.
func WorktreeThread(ctx context.Context, a *app.App, cfg *config.Config, fromThreadID string) (*agent.Thread, *worktree.Managed, error) {
	m, err := worktree.Create(ctx, cfg.CodexHome, cfg.Cwd)
	if err != nil {
		return nil, nil, err
	}
	c := *cfg
	c.Cwd = m.Cwd
	if rel, err := filepath.Rel(cfg.Cwd, cfg.ProjectRoot); cfg.ProjectRoot != "" && err == nil && !strings.HasPrefix(rel, "..") {
		c.ProjectRoot = filepath.Join(m.Cwd, rel)
	} else if cfg.ProjectRoot != "" {
		c.ProjectRoot = m.Root
	}
	to := app.ThreadOptions{Config: &c, Source: "cli"}
	if fromThreadID != "" {
		store := threads.New(cfg.CodexHome)
		path, archived, err := store.Find(fromThreadID)
		if err != nil {
			return nil, nil, err
		}
		if archived {
			return nil, nil, errors.New("thread is archived: " + fromThreadID)
		}
		if _, to.Resume, err = store.Fork(path, threads.ForkOptions{}); err != nil {
			return nil, nil, err
		}
	}
	th, err := a.StartThread(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	if err := m.RecordOwner(th.ID()); err != nil {
		th.Submit(protocol.ShutdownOp{})
		return nil, nil, fmt.Errorf("record the worktree's thread: %w", err)
	}
	return th, m, nil
}
