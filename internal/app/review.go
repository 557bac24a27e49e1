package app

import (
	"context"

	"github.com/gocodex/gocodex/internal/review"
	"github.com/gocodex/gocodex/protocol"
)

// ReviewRequest is the request a face submits to review target t in cwd: the target checked
// first (a branch or commit that does not resolve is refused before a turn starts), with the
// hint the user sees. Every face's review (exec review, /review, review/start) comes here.
func ReviewRequest(ctx context.Context, cwd string, t protocol.ReviewTarget) (protocol.ReviewRequest, error) {
	if _, err := review.Check(ctx, cwd, t); err != nil {
		return protocol.ReviewRequest{}, err
	}
	return review.Request(t), nil
}
