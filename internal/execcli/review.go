package execcli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/protocol"
)

// errNoReviewTarget is Codex 0.169's message for `review` with nothing to review.
var errNoReviewTarget = errors.New("Specify --uncommitted, --base, --commit, or provide custom review instructions")

// reviewRequest turns the review flags into a request, refusing one with no target, or an
// unknown branch or commit, before any model is called. "-" as the instructions reads stdin.
func reviewRequest(ctx context.Context, opts RunOptions, s *iostreams.IOStreams, cwd string) (*protocol.ReviewRequest, error) {
	r := opts.Review
	var t protocol.ReviewTarget
	switch {
	case r.Uncommitted:
		t = protocol.ReviewTarget{Type: protocol.ReviewUncommitted}
	case r.Base != "":
		t = protocol.ReviewTarget{Type: protocol.ReviewBaseBranch, Branch: r.Base}
	case r.Commit != "":
		t = protocol.ReviewTarget{Type: protocol.ReviewCommit, Sha: r.Commit}
		if r.Title != "" {
			title := r.Title
			t.Title = &title
		}
	case opts.HasPrompt:
		text := opts.Prompt
		if text == "-" {
			var err error
			if text, err = readPrompt(opts, s); err != nil {
				return nil, err
			}
		}
		if strings.TrimSpace(text) == "" {
			return nil, errNoReviewTarget
		}
		t = protocol.ReviewTarget{Type: protocol.ReviewCustom, Instructions: text}
	default:
		return nil, errNoReviewTarget
	}
	req, err := app.ReviewRequest(ctx, cwd, t)
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	return &req, nil
}
