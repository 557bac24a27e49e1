package execcli

import (
	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/protocol"
)

// NoUserNote is what the human output says when the model asks the user something: exec
// has nobody to ask.
const NoUserNote = "request_user_input: no user is present in exec mode; the model was given no answers"

// NoApproverNote is what the human output says when an approval is asked for: exec has
// nobody to approve, so it declines.
const NoApproverNote = "approval requested: no user is present in exec mode to approve; declined (headless runs want approval_policy = \"never\", or use the terminal UI)"

// answerNoUser answers a question for the user at once, with no answers, as Codex's exec
// does (its output to the model is {"answers":{}}); the model goes on without them.
func answerNoUser(th app.Thread, ev protocol.RequestUserInputEvent) error {
	_, err := th.Submit(protocol.UserInputAnswerOp{ID: ev.TurnID})
	return err
}

// denyNoUser answers an approval request at once with a denial: exec has nobody to ask, and
// a request left unanswered would hang the run (a policy such as on-request chosen in
// config.toml still asks). The model is told the action was declined and goes on.
func denyNoUser(th app.Thread, msg protocol.EventMsg) error {
	denied := protocol.ReviewDecision{Kind: protocol.DecisionDenied}
	var op protocol.Op
	switch ev := msg.(type) {
	case protocol.ExecApprovalRequestEvent:
		id := ev.ApprovalID
		if id == "" {
			id = ev.CallID
		}
		op = protocol.ExecApprovalOp{ID: id, TurnID: ev.TurnID, Decision: denied}
	case protocol.ApplyPatchApprovalRequestEvent:
		op = protocol.PatchApprovalOp{ID: ev.CallID, Decision: denied}
	default:
		return nil
	}
	_, err := th.Submit(op)
	return err
}
