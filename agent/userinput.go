package agent

import (
	"context"

	"github.com/gocodex/gocodex/protocol"
)

// requestUserInput puts a request_user_input call's questions to the client and waits for
// the UserInputAnswerOp naming the turn (Codex keys the answer by turn id). An interrupt
// cancels ctx and the call ends "aborted".
func (t *Thread) requestUserInput(ctx context.Context, tr *turn, ev protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
	ev.TurnID = tr.id
	return t.questions.ask(ctx, tr, tr.id, ev)
}

// answerUserInput delivers the client's answers; an answer nobody waits for is ignored.
func (t *Thread) answerUserInput(turnID string, r protocol.RequestUserInputResponse) {
	if !t.questions.answer(turnID, r) && !t.forwardToReviewer(protocol.UserInputAnswerOp{ID: turnID, Response: r}) {
		t.log.Debug("user input answer without a pending question", "turn", turnID)
	}
}
