package execcli

import (
	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/protocol"
)

// NoUserNote is what the human output says when the model asks the user something: exec
// has nobody to ask.
const NoUserNote = "request_user_input: no user is present in exec mode; the model was given no answers"

// answerNoUser answers a question for the user at once, with no answers, as Codex's exec
// does (its output to the model is {"answers":{}}); the model goes on without them.
func answerNoUser(th *agent.Thread, ev protocol.RequestUserInputEvent) error {
	_, err := th.Submit(protocol.UserInputAnswerOp{ID: ev.TurnID})
	return err
}
