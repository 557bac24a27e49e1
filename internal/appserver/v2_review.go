package appserver

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
)

// ReviewStart answers review/start.
func (a *api) ReviewStart(ctx context.Context, c *Conn, p ReviewStartParams) (ReviewStartResponse, error) {
	return a.r.reviewStart(ctx, c, p)
}

// reviewStart runs a review on the thread as a turn of its own. Codex 0.169 delivers
// reviews inline only (its schema's one ReviewDelivery); anything else is refused as Codex
// refuses it. A target that names nothing, or an unknown branch or commit, is refused
// before the review starts.
func (r *threads) reviewStart(ctx context.Context, c *Conn, p ReviewStartParams) (ReviewStartResponse, error) {
	if p.Delivery != nil && *p.Delivery != "inline" {
		return ReviewStartResponse{}, InvalidRequest("Invalid request: unknown variant `" + string(*p.Delivery) + "`, expected `inline`")
	}
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return ReviewStartResponse{}, err
	}
	req, err := app.ReviewRequest(ctx, lt.cfg.Cwd, p.Target)
	if err != nil {
		return ReviewStartResponse{}, InvalidRequest(err.Error())
	}
	id := newSubmissionID()
	lt.gate(id, ctx.Done())
	if err := lt.th.SubmitWithID(id, protocol.ReviewOp{ReviewRequest: req}); err != nil {
		return ReviewStartResponse{}, internalError(err.Error())
	}
	hint := &wire.V2UserMessage{Type: "userMessage", ID: id, Content: []wire.V2UserContent{{Type: "text", Text: req.UserFacingHint, TextElements: []json.RawMessage{}}}}
	return ReviewStartResponse{
		Turn:           wire.V2Turn{ID: id, Items: []wire.V2Item{hint}, ItemsView: "notLoaded", Status: "inProgress"},
		ReviewThreadID: p.ThreadID,
	}, nil
}
