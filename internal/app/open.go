package app

import (
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/rollout"
)

// Open says which recorded thread a face continues: one by id, the latest (--last), or a
// fork of one. The zero value starts a new thread.
type Open struct {
	ResumeID string
	// ResumeLast takes the most recently updated thread of this directory and provider (of
	// every directory with AllDirectories). Nothing to resume starts a new thread, as in Codex.
	ResumeLast     bool
	AllDirectories bool
	// ForkID starts a new thread from a copy of this one, without its last ForkDropTurns
	// user turns.
	ForkID        string
	ForkDropTurns int
}

// OpenRollout finds the rollout o names (nil for a new thread): the one way every face
// resumes and forks by id or --last.
func OpenRollout(cfg *config.Config, o Open) (*rollout.Rollout, error) {
	var path string
	switch {
	case o.ResumeID != "" || o.ForkID != "":
		id := o.ResumeID
		if o.ForkID != "" {
			id = o.ForkID
		}
		p, archived, err := rollout.Find(cfg.CodexHome, id)
		if err != nil {
			return nil, err
		}
		if archived && o.ForkID == "" {
			// An archived thread is out of the way until it is unarchived, as in Codex.
			return nil, fmt.Errorf("%w for thread id %s (it is archived)", rollout.ErrNotFound, id)
		}
		path = p
	case o.ResumeLast:
		lo := rollout.ListOptions{}
		if !o.AllDirectories {
			lo.Cwd, lo.Providers = cfg.Cwd, []string{cfg.ModelProviderID}
		}
		s, err := rollout.Latest(cfg.CodexHome, lo)
		if errors.Is(err, rollout.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		path = s.Path
	default:
		return nil, nil
	}
	src, err := rollout.Load(cfg.CodexHome, path)
	if err != nil || o.ForkID == "" {
		return src, err
	}
	newID, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	forked, err := rollout.Fork(cfg.CodexHome, src, rollout.ForkOptions{NewID: newID.String(), DropLastTurns: o.ForkDropTurns})
	if err != nil {
		return nil, err
	}
	return rollout.Load(cfg.CodexHome, forked)
}
