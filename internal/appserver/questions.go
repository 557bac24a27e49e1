package appserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gocodex/gocodex/internal/appserver/wire"
	"github.com/gocodex/gocodex/protocol"
)

// Questions: the engine asks (request_user_input), the first v2 subscriber gets
// item/tool/requestUserInput, and its answer goes back to the engine as UserInputAnswer,
// after serverRequest/resolved. As in Codex, a client that answers with an error (or
// something that is not a ToolRequestUserInputResponse) gives the model no answers, and a
// question still open when its turn ends (an interrupt) is withdrawn: serverRequest/resolved
// follows turn/completed.

// openQuestions are a thread's unanswered requests. The zero value is ready.
type openQuestions struct {
	mu     sync.Mutex
	next   int
	cancel map[int]context.CancelFunc
}

// add registers the wait of one request; done unregisters it.
func (o *openQuestions) add(cancel context.CancelFunc) (done func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cancel == nil {
		o.cancel = map[int]context.CancelFunc{}
	}
	o.next++
	key := o.next
	o.cancel[key] = cancel
	return func() {
		o.mu.Lock()
		delete(o.cancel, key)
		o.mu.Unlock()
		cancel()
	}
}

// endAll withdraws every open request: the turn they belong to is over.
func (o *openQuestions) endAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, cancel := range o.cancel {
		cancel()
		delete(o.cancel, key)
	}
}

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
	ctx, cancel := context.WithCancel(c.Context())
	done := lt.questions.add(cancel)
	flushed := lt.flushed(c) // the request follows the notifications queued before it
	c.Go(func() {
		defer done()
		<-flushed
		pr, err := c.StartRequest(ctx, "item/tool/requestUserInput", wire.V2RequestUserInputParams(lt.id, turnID, m))
		if err != nil {
			return // the connection is gone, or the turn ended first
		}
		raw, err := pr.Wait(ctx)
		switch {
		case c.Context().Err() != nil:
			return // the connection is gone
		case ctx.Err() != nil:
			// The turn ended (interrupted) before an answer: the request is withdrawn.
			lt.resolved(c, pr.ID(), m.CallID, false)
			return
		}
		var resp protocol.RequestUserInputResponse
		if err == nil {
			if jerr := json.Unmarshal(raw, &resp); jerr != nil {
				c.log.Warn("item/tool/requestUserInput: unreadable answer; the model gets no answers", "thread", lt.id, "err", jerr)
				resp = protocol.RequestUserInputResponse{}
			}
		}
		lt.resolved(c, pr.ID(), m.CallID, false)
		answer(resp)
	})
}
