package protocol

import (
	"encoding/json"
	"fmt"
)

// Review target kinds, as Codex spells them on every wire.
const (
	ReviewUncommitted = "uncommittedChanges"
	ReviewBaseBranch  = "baseBranch"
	ReviewCommit      = "commit"
	ReviewCustom      = "custom"
)

// ReviewTarget is what a review looks at: the uncommitted changes, the changes against a
// base branch, one commit, or free-form instructions. Only the fields of its Type are sent.
type ReviewTarget struct {
	Type         string
	Branch       string
	Sha          string
	Title        *string
	Instructions string
}

func (r ReviewTarget) MarshalJSON() ([]byte, error) {
	switch r.Type {
	case ReviewUncommitted, "":
		// The zero target is the uncommitted changes, the review Codex runs by default.
		return marshalTagged("type", ReviewUncommitted, struct{}{})
	case ReviewBaseBranch:
		return marshalTagged("type", r.Type, struct {
			Branch string `json:"branch"`
		}{r.Branch})
	case ReviewCommit:
		return marshalTagged("type", r.Type, struct {
			Sha   string  `json:"sha"`
			Title *string `json:"title"`
		}{r.Sha, r.Title})
	case ReviewCustom:
		return marshalTagged("type", r.Type, struct {
			Instructions string `json:"instructions"`
		}{r.Instructions})
	}
	return nil, fmt.Errorf("review target: unknown type %q", r.Type)
}

func (r *ReviewTarget) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type         string  `json:"type"`
		Branch       string  `json:"branch"`
		Sha          string  `json:"sha"`
		Title        *string `json:"title"`
		Instructions string  `json:"instructions"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	switch raw.Type {
	case ReviewUncommitted, ReviewBaseBranch, ReviewCommit, ReviewCustom:
	default:
		return &UnknownVariantError{Enum: "ReviewTarget", Variant: raw.Type}
	}
	*r = ReviewTarget{Type: raw.Type, Branch: raw.Branch, Sha: raw.Sha, Title: raw.Title, Instructions: raw.Instructions}
	return nil
}

// ReviewRequest asks for a review; UserFacingHint is how faces name it ("current changes").
type ReviewRequest struct {
	Target         ReviewTarget `json:"target"`
	UserFacingHint string       `json:"user_facing_hint,omitempty"`
}

// ReviewOp runs a review of the request's target as a turn of its own.
type ReviewOp struct {
	ReviewRequest ReviewRequest `json:"review_request"`
}

func (ReviewOp) OpType() string { return "review" }
func (ReviewOp) isOp()          {}

func (o ReviewOp) MarshalJSON() ([]byte, error) {
	type plain ReviewOp
	return marshalTagged("type", o.OpType(), plain(o))
}

// ReviewLineRange is an inclusive range of lines.
type ReviewLineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ReviewCodeLocation is where a finding points.
type ReviewCodeLocation struct {
	AbsoluteFilePath string          `json:"absolute_file_path"`
	LineRange        ReviewLineRange `json:"line_range"`
}

// ReviewFinding is one comment of a review.
type ReviewFinding struct {
	Title           string             `json:"title"`
	Body            string             `json:"body"`
	ConfidenceScore float64            `json:"confidence_score"`
	Priority        *int               `json:"priority"`
	CodeLocation    ReviewCodeLocation `json:"code_location"`
}

// ReviewOutputEvent is a review's structured result: its findings and the overall verdict.
type ReviewOutputEvent struct {
	Findings               []ReviewFinding `json:"findings"`
	OverallCorrectness     string          `json:"overall_correctness"`
	OverallExplanation     string          `json:"overall_explanation"`
	OverallConfidenceScore float64         `json:"overall_confidence_score"`
}

func (o ReviewOutputEvent) MarshalJSON() ([]byte, error) {
	type plain ReviewOutputEvent
	p := plain(o)
	if p.Findings == nil {
		p.Findings = []ReviewFinding{}
	}
	return json.Marshal(p)
}

// EnteredReviewModeEvent opens a review: the request it runs.
type EnteredReviewModeEvent ReviewRequest

// ExitedReviewModeEvent closes a review with its result (nil when the review was cut short).
type ExitedReviewModeEvent struct {
	ReviewOutput *ReviewOutputEvent `json:"review_output"`
}

func (EnteredReviewModeEvent) EventType() string { return "entered_review_mode" }
func (EnteredReviewModeEvent) isEventMsg()       {}

func (e EnteredReviewModeEvent) MarshalJSON() ([]byte, error) {
	return marshalTagged("type", e.EventType(), ReviewRequest(e))
}

func (ExitedReviewModeEvent) EventType() string { return "exited_review_mode" }
func (ExitedReviewModeEvent) isEventMsg()       {}

func (e ExitedReviewModeEvent) MarshalJSON() ([]byte, error) {
	type plain ExitedReviewModeEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

// UnmarshalJSON reads a request; an absent target is the zero target, the uncommitted
// changes, spelled out so a decoded request equals what its own encoding decodes to.
func (r *ReviewRequest) UnmarshalJSON(data []byte) error {
	type plain ReviewRequest
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p.Target.Type == "" {
		p.Target.Type = ReviewUncommitted
	}
	*r = ReviewRequest(p)
	return nil
}

func (e *EnteredReviewModeEvent) UnmarshalJSON(data []byte) error {
	var r ReviewRequest
	if err := r.UnmarshalJSON(data); err != nil {
		return err
	}
	*e = EnteredReviewModeEvent(r)
	return nil
}
