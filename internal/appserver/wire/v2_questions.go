package wire

import "github.com/gocodex/gocodex/protocol"

// Questions to the user (request_user_input): the server asks with
// item/tool/requestUserInput (ToolRequestUserInputParams) and the client answers with a
// ToolRequestUserInputResponse, whose shape is the engine's RequestUserInputResponse.

// V2ToolRequestUserInputOption is ToolRequestUserInputOption.
type V2ToolRequestUserInputOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// V2ToolRequestUserInputQuestion is ToolRequestUserInputQuestion; Options is null for a
// question without choices.
type V2ToolRequestUserInputQuestion struct {
	ID       string                          `json:"id"`
	Header   string                          `json:"header"`
	Question string                          `json:"question"`
	IsOther  bool                            `json:"isOther"`
	IsSecret bool                            `json:"isSecret"`
	Options  *[]V2ToolRequestUserInputOption `json:"options"`
}

// V2ToolRequestUserInputParams is ToolRequestUserInputParams; ItemID is the model's call id.
type V2ToolRequestUserInputParams struct {
	ThreadID         string                           `json:"threadId"`
	TurnID           string                           `json:"turnId"`
	ItemID           string                           `json:"itemId"`
	Questions        []V2ToolRequestUserInputQuestion `json:"questions"`
	IsBlocking       bool                             `json:"isBlocking"`
	AutoResolutionMs *uint64                          `json:"autoResolutionMs"`
}

// V2RequestUserInputParams maps the engine's event onto the request's params.
func V2RequestUserInputParams(threadID, turnID string, m protocol.RequestUserInputEvent) V2ToolRequestUserInputParams {
	p := V2ToolRequestUserInputParams{ThreadID: threadID, TurnID: turnID, ItemID: m.CallID,
		Questions: make([]V2ToolRequestUserInputQuestion, 0, len(m.Questions)), IsBlocking: m.IsBlocking,
		AutoResolutionMs: m.AutoResolutionMs}
	for _, q := range m.Questions {
		wq := V2ToolRequestUserInputQuestion{ID: q.ID, Header: q.Header, Question: q.Question, IsOther: q.IsOther, IsSecret: q.IsSecret}
		if q.Options != nil {
			opts := make([]V2ToolRequestUserInputOption, 0, len(q.Options))
			for _, o := range q.Options {
				opts = append(opts, V2ToolRequestUserInputOption(o))
			}
			wq.Options = &opts
		}
		p.Questions = append(p.Questions, wq)
	}
	return p
}

// applyQuestion marks the thread waiting on the user while a question is open, as Codex
// does (activeFlags ["waitingOnUserInput"]); ApprovalResolved clears it.
func (p *V2Projector) applyQuestion(msg protocol.EventMsg) []V2Notification {
	if _, ok := msg.(protocol.RequestUserInputEvent); !ok {
		return nil
	}
	// The fold completed the reasoning already (the question ends it).
	return p.setStatus(active("waitingOnUserInput"))
}
