package appserver

import (
	"encoding/json"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
)

// Questions: the engine asks (request_user_input), the first v2 subscriber gets
// item/tool/requestUserInput, and its answer goes back to the engine as UserInputAnswer,
// after serverRequest/resolved. As in Codex, a client that answers with an error (or
// something that is not a ToolRequestUserInputResponse) gives the model no answers.

// askQuestions puts the questions to the thread's first v2 subscriber. v1 has no such
// request, so with no v2 subscriber the engine is answered at once with no answers rather
// than leaving the turn waiting for a client that cannot answer.
func (lt *loadedThread) askQuestions(subs []*Conn, subID string, m protocol.RequestUserInputEvent) {
	turnID := m.TurnID
	if turnID == "" {
		turnID = subID
	}
	answer := func(r protocol.RequestUserInputResponse) {
		_ = lt.th.SubmitWithID(newSubmissionID(), protocol.UserInputAnswerOp{ID: turnID, Response: r})
	}
	if len(subs) == 0 {
		lt.reg.srv.logger.Warn("request_user_input with no v2 client subscribed; answering with no answers", "thread", lt.id)
		answer(protocol.RequestUserInputResponse{})
		return
	}
	c := subs[0]
	flushed := lt.flushed(c) // the request follows the notifications queued before it
	c.Go(func() {
		<-flushed
		reqID, raw, err := c.numberedRequest("item/tool/requestUserInput", wire.V2RequestUserInputParams(lt.id, turnID, m))
		if err != nil && c.Context().Err() != nil {
			return // the connection is gone; an interrupt ends the wait
		}
		var resp protocol.RequestUserInputResponse
		if err == nil {
			if jerr := json.Unmarshal(raw, &resp); jerr != nil {
				lt.reg.srv.logger.Warn("item/tool/requestUserInput: unreadable answer; the model gets no answers", "thread", lt.id, "err", jerr)
				resp = protocol.RequestUserInputResponse{}
			}
		}
		lt.resolved(c, reqID, m.CallID, false)
		answer(resp)
	})
}
