// Package userinput is the request_user_input tool: the model puts one to three short
// questions to the user, the engine shows them to the client (request_user_input event) and
// the call's output is the client's answers as JSON, {"answers":{"<id>":{"answers":[...]}}}.
//
// Codex offers the tool in every mode but answers it only in Plan mode (or in Default mode
// with features.default_mode_request_user_input); elsewhere the model is told it is
// unavailable.
package userinput

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// UnavailableOutput is what the model is told when questions may not be asked in the
// thread's collaboration mode, in Codex's words.
const UnavailableOutput = "request_user_input is unavailable in Default mode"

// NoOptionsOutput rejects a question without choices, in Codex's words.
const NoOptionsOutput = "request_user_input requires non-empty options for every question"

// NoUserOutput is the call's output when no client can answer (the engine has no way to
// ask, or the client refused): no answers, as Codex sends it.
const NoUserOutput = `{"answers":{}}`

// Options configure the handler.
type Options struct {
	// DefaultMode lets questions be asked in Default mode (Codex's
	// features.default_mode_request_user_input).
	DefaultMode bool
}

// Handler handles request_user_input calls.
type Handler struct{ opts Options }

// New returns the request_user_input handler.
func New(o Options) *Handler { return &Handler{opts: o} }

// Spec is the request_user_input spec Codex sends.
func (*Handler) Spec() tool.Spec { return tools.RequestUserInputSpec() }

// Args are the arguments of a request_user_input call.
type Args struct {
	Questions []protocol.RequestUserInputQuestion `json:"questions"`
}

// allowed reports whether questions may be asked in the turn's collaboration mode.
func (h *Handler) allowed(env *tool.Env) bool {
	if env != nil && env.Mode == protocol.ModePlan {
		return true
	}
	return h.opts.DefaultMode
}

// Parse reads the arguments. Every question needs an id, a header, a question and at least
// one option; the client always offers a free-form "Other" answer (isOther), as in Codex.
func Parse(arguments string) (*Args, error) {
	var raw struct {
		Questions *[]struct {
			ID       *string                           `json:"id"`
			Header   *string                           `json:"header"`
			Question *string                           `json:"question"`
			Options  []protocol.RequestUserInputOption `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal([]byte(arguments), &raw); err != nil {
		return nil, fmt.Errorf("failed to parse function arguments: %v", err)
	}
	if raw.Questions == nil {
		return nil, errors.New("failed to parse function arguments: missing field `questions`")
	}
	out := &Args{Questions: make([]protocol.RequestUserInputQuestion, 0, len(*raw.Questions))}
	for i, q := range *raw.Questions {
		for _, f := range []struct {
			name string
			v    *string
		}{{"id", q.ID}, {"header", q.Header}, {"question", q.Question}} {
			if f.v == nil {
				return nil, fmt.Errorf("failed to parse function arguments: questions[%d]: missing field `%s`", i, f.name)
			}
		}
		if len(q.Options) == 0 {
			return nil, errors.New(NoOptionsOutput)
		}
		out.Questions = append(out.Questions, protocol.RequestUserInputQuestion{
			ID: *q.ID, Header: *q.Header, Question: *q.Question, IsOther: true, Options: q.Options,
		})
	}
	return out, nil
}

// Handle asks the questions and returns the answers as the model reads them. Refusals and
// bad arguments are the model's to act on: they come back as the output, not as errors.
// An interrupt while waiting ends the call with the context's error.
func (h *Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	if !h.allowed(env) {
		return tool.Result{Output: UnavailableOutput}, nil
	}
	a, err := Parse(call.Arguments)
	if err != nil {
		return tool.Result{Output: err.Error()}, nil
	}
	if env == nil || env.RequestUserInput == nil {
		return tool.Result{Output: NoUserOutput}, nil
	}
	resp, err := env.RequestUserInput(ctx, protocol.RequestUserInputEvent{CallID: call.CallID, Questions: a.Questions})
	if err != nil {
		return tool.Result{}, err
	}
	out, err := protocol.Marshal(resp)
	if err != nil {
		return tool.Result{}, fmt.Errorf("encode answers: %w", err)
	}
	return tool.Result{Output: string(out), Success: true}, nil
}
