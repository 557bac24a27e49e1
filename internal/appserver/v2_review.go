package appserver

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/internal/review"
	"github.com/gocodex/gocodex/protocol"
)

type reviewStartParams struct {
	ThreadID string                `json:"threadId"`
	Target   protocol.ReviewTarget `json:"target"`
	Delivery *string               `json:"delivery"`
}

type reviewStartResponse struct {
	Turn           wire.V2Turn `json:"turn"`
	ReviewThreadID string      `json:"reviewThreadId"`
}

func (r *threads) registerReview(s *Server) {
	s.Handle("review/start", Typed(r.reviewStart))
}

// reviewStart runs a review on the thread as a turn of its own. Codex 0.169 delivers
// reviews inline only (its schema's one ReviewDelivery); anything else is refused as Codex
// refuses it. A target that names nothing, or an unknown branch or commit, is refused
// before the review starts.
func (r *threads) reviewStart(ctx context.Context, c *Conn, p reviewStartParams) (reviewStartResponse, error) {
	if p.Delivery != nil && *p.Delivery != "inline" {
		return reviewStartResponse{}, InvalidRequest("Invalid request: unknown variant `" + *p.Delivery + "`, expected `inline`")
	}
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return reviewStartResponse{}, err
	}
	if _, err := review.Check(ctx, lt.cfg.Cwd, p.Target); err != nil {
		return reviewStartResponse{}, InvalidRequest(err.Error())
	}
	req := review.Request(p.Target)
	id := newSubmissionID()
	lt.gate(id, ctx.Done())
	if err := lt.th.SubmitWithID(id, protocol.ReviewOp{ReviewRequest: req}); err != nil {
		return reviewStartResponse{}, internalError(err.Error())
	}
	hint := &wire.V2UserMessage{Type: "userMessage", ID: id, Content: []wire.V2UserContent{{Type: "text", Text: req.UserFacingHint, TextElements: []json.RawMessage{}}}}
	return reviewStartResponse{
		Turn:           wire.V2Turn{ID: id, Items: []wire.V2Item{hint}, ItemsView: "notLoaded", Status: "inProgress"},
		ReviewThreadID: p.ThreadID,
	}, nil
}
