package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/snapshot"
	"github.com/gocodex/gocodex/protocol"
)

// RewindFiles restores the files the last n turns of a thread changed, from the thread's
// snapshots (dryRun only plans). It refuses, changing nothing, a rewind past the first
// recorded turn, of snapshots taken on another machine or tree, or across a hand edit of a
// file the turns changed.
func RewindFiles(ctx context.Context, codexHome, threadID, cwd string, n int, dryRun bool) (*snapshot.Plan, error) {
	if n < 1 {
		return nil, errors.New("the number of turns to rewind must be at least 1")
	}
	snap, err := snapshot.Open(codexHome, threadID, cwd)
	if err != nil {
		return nil, err
	}
	if dryRun {
		return snap.Plan(ctx, n)
	}
	return snap.Rewind(ctx, n)
}

// ForgetTurns drops the last n turns from a thread's snapshots without touching its files,
// for a rollback of the conversation alone, so later rewinds count the same turns as the
// conversation.
func ForgetTurns(ctx context.Context, codexHome, threadID, cwd string, n int) error {
	snap, err := snapshot.Open(codexHome, threadID, cwd)
	if err != nil {
		return err
	}
	return snap.Forget(ctx, n)
}

// RewindThread rewinds the last n turns of a recorded thread no process has open: first its
// files, then its conversation (the thread_rolled_back marker a resume replays), so a refused
// rewind changes neither. A dry run plans the files and touches nothing.
func (a *App) RewindThread(ctx context.Context, ro *rollout.Rollout, n int, dryRun bool) (*snapshot.Plan, error) {
	turns := userTurns(ro.Reconstruct().History)
	if n > turns {
		return nil, fmt.Errorf("cannot rewind %d turns: thread %s has %d", n, ro.Meta.ID, turns)
	}
	plan, err := RewindFiles(ctx, a.cfg.CodexHome, ro.Meta.ID, ro.Meta.Cwd, n, dryRun)
	if err != nil || dryRun {
		return plan, err
	}
	th, err := a.StartThread(ctx, ThreadOptions{Resume: ro})
	if err != nil {
		return plan, fmt.Errorf("files restored, but the conversation could not be reopened: %w", err)
	}
	if err := rollBack(ctx, th, n); err != nil {
		return plan, fmt.Errorf("files restored, but the conversation was not rewound: %w", err)
	}
	return plan, nil
}

// rollBack drops the last n turns of a thread's conversation and shuts it down.
func rollBack(ctx context.Context, th *agent.Thread, n int) error {
	defer func() {
		if _, err := th.Submit(protocol.ShutdownOp{}); err == nil {
			for {
				if _, err := th.NextEvent(context.WithoutCancel(ctx)); err != nil {
					return
				}
			}
		}
	}()
	if _, err := th.Submit(protocol.ThreadRollbackOp{NumTurns: n}); err != nil {
		return err
	}
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			return err
		}
		switch m := ev.Msg.(type) {
		case protocol.ThreadRolledBackEvent:
			return nil
		case protocol.ErrorEvent:
			return errors.New(m.Message)
		}
	}
}

// userTurns counts the turns a person started in a history: the user messages that are not
// context the engine recorded (environment, instructions).
func userTurns(items []protocol.ResponseItem) int {
	n := 0
	for _, it := range items {
		m, ok := it.(protocol.MessageItem)
		if !ok || m.Role != "user" {
			continue
		}
		contextual := false
		for _, c := range m.Content {
			if c.Type == protocol.ContentInputText && prompt.IsContextualUserText(c.Text) {
				contextual = true
			}
		}
		if !contextual {
			n++
		}
	}
	return n
}
