package protocol

// Questions to the user: the model's request_user_input tool pauses its call, the thread
// emits RequestUserInputEvent, and the client answers with UserInputAnswerOp.

// RequestUserInputOption is one choice offered for a question.
type RequestUserInputOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// RequestUserInputQuestion is one question put to the user. IsOther says the client adds a
// free-form "Other" answer; IsSecret asks it to mask what is typed.
type RequestUserInputQuestion struct {
	ID       string                   `json:"id"`
	Header   string                   `json:"header"`
	Question string                   `json:"question"`
	IsOther  bool                     `json:"isOther"`
	IsSecret bool                     `json:"isSecret"`
	Options  []RequestUserInputOption `json:"options,omitempty"`
}

// RequestUserInputEvent asks the user the questions of a request_user_input call and waits
// for UserInputAnswerOp with ID = TurnID.
type RequestUserInputEvent struct {
	// CallID is the model's call id of the request_user_input call.
	CallID string `json:"call_id"`
	// TurnID is the turn the request belongs to; the answer names it.
	TurnID    string                     `json:"turn_id"`
	Questions []RequestUserInputQuestion `json:"questions"`
	// IsBlocking is false for the model's questions (Codex sends false).
	IsBlocking bool `json:"isBlocking"`
	// AutoResolutionMs is deprecated in Codex and never set by gocodex.
	AutoResolutionMs *uint64 `json:"autoResolutionMs,omitempty"`
}

// RequestUserInputAnswer is the answer to one question: the chosen labels and any free text.
type RequestUserInputAnswer struct {
	Answers []string `json:"answers"`
}

// RequestUserInputResponse maps question ids to answers. It is also what the model receives
// as the call's output, encoded as JSON.
type RequestUserInputResponse struct {
	Answers map[string]RequestUserInputAnswer `json:"answers"`
}

// UserInputAnswerOp answers a RequestUserInputEvent. Codex also accepts the tag
// "request_user_input_response".
type UserInputAnswerOp struct {
	// ID is the turn id of the request.
	ID       string                   `json:"id"`
	Response RequestUserInputResponse `json:"response"`
}

func (RequestUserInputEvent) EventType() string { return "request_user_input" }
func (RequestUserInputEvent) isEventMsg()       {}

func (e RequestUserInputEvent) MarshalJSON() ([]byte, error) {
	type plain RequestUserInputEvent
	p := plain(e)
	if p.Questions == nil {
		p.Questions = []RequestUserInputQuestion{}
	}
	return marshalTagged("type", e.EventType(), p)
}

func (UserInputAnswerOp) OpType() string { return "user_input_answer" }
func (UserInputAnswerOp) isOp()          {}

func (o UserInputAnswerOp) MarshalJSON() ([]byte, error) {
	type plain UserInputAnswerOp
	p := plain(o)
	p.Response = p.Response.normalized()
	return marshalTagged("type", o.OpType(), p)
}

// MarshalJSON writes an empty map rather than null, and empty answer lists as [].
func (r RequestUserInputResponse) MarshalJSON() ([]byte, error) {
	type plain RequestUserInputResponse
	return Marshal(plain(r.normalized()))
}

func (r RequestUserInputResponse) normalized() RequestUserInputResponse {
	out := RequestUserInputResponse{Answers: make(map[string]RequestUserInputAnswer, len(r.Answers))}
	for id, a := range r.Answers {
		if a.Answers == nil {
			a.Answers = []string{}
		}
		out.Answers[id] = a
	}
	return out
}
