package userinput

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

const question = `{"questions":[{"id":"color","header":"Color","question":"Which color?","options":[{"label":"Red","description":"Warm."}]}]}`

func call(args string) tool.Call {
	return tool.Call{Kind: tool.FunctionCall, CallID: "call_1", Name: tools.NameRequestUserInput, Arguments: args}
}

// Outside the modes that allow questions, every call is refused first, in Codex's words,
// whatever its arguments.
func TestRefusedInDefaultMode(t *testing.T) {
	for _, args := range []string{question, "{bad"} {
		res, err := New(Options{}).Handle(context.Background(), &tool.Env{}, call(args))
		if err != nil || res.Output != "request_user_input is unavailable in Default mode" || res.Success {
			t.Errorf("%s: %+v, %v", args, res, err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for args, want := range map[string]string{
		"{bad": "failed to parse function arguments: invalid character 'b' looking for beginning of object key string",
		`{}`:   "failed to parse function arguments: missing field `questions`",
		`{"questions":[{"id":"a","question":"q","options":[{"label":"x","description":"y"}]}]}`: "failed to parse function arguments: questions[0]: missing field `header`",
		`{"questions":[{"id":"a","header":"h","question":"q"}]}`:                                NoOptionsOutput,
		`{"questions":[{"id":"a","header":"h","question":"q","options":[]}]}`:                   "request_user_input requires non-empty options for every question",
	} {
		asked := false
		env := &tool.Env{RequestUserInput: func(context.Context, protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
			asked = true
			return protocol.RequestUserInputResponse{}, nil
		}}
		res, err := New(Options{DefaultMode: true}).Handle(context.Background(), env, call(args))
		if err != nil || res.Output != want || asked {
			t.Errorf("%s: %+v, %v (asked %v); want %q", args, res, err, asked, want)
		}
	}
}

// The questions go to the engine with isOther set (the client adds "Other"); the answers
// come back to the model as JSON.
func TestAsksAndReturnsAnswers(t *testing.T) {
	var got protocol.RequestUserInputEvent
	env := &tool.Env{RequestUserInput: func(_ context.Context, ev protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
		got = ev
		return protocol.RequestUserInputResponse{Answers: map[string]protocol.RequestUserInputAnswer{"color": {Answers: []string{"Red"}}}}, nil
	}}
	res, err := New(Options{DefaultMode: true}).Handle(context.Background(), env, call(question))
	if err != nil || res.Output != `{"answers":{"color":{"answers":["Red"]}}}` || !res.Success {
		t.Fatalf("%+v, %v", res, err)
	}
	want := protocol.RequestUserInputEvent{CallID: "call_1", Questions: []protocol.RequestUserInputQuestion{{
		ID: "color", Header: "Color", Question: "Which color?", IsOther: true,
		Options: []protocol.RequestUserInputOption{{Label: "Red", Description: "Warm."}},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

// With nobody to ask, the model gets no answers rather than a wait that never ends; a
// canceled wait is the engine's (the call ends "aborted").
func TestNoUserAndCancel(t *testing.T) {
	res, err := New(Options{DefaultMode: true}).Handle(context.Background(), &tool.Env{}, call(question))
	if err != nil || res.Output != `{"answers":{}}` {
		t.Errorf("no user: %+v, %v", res, err)
	}
	env := &tool.Env{RequestUserInput: func(ctx context.Context, _ protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
		return protocol.RequestUserInputResponse{}, context.Canceled
	}}
	if _, err := New(Options{DefaultMode: true}).Handle(context.Background(), env, call(question)); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// In Plan mode questions are asked without the feature.
func TestAskedInPlanMode(t *testing.T) {
	asked := false
	env := &tool.Env{Mode: protocol.ModePlan, RequestUserInput: func(context.Context, protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
		asked = true
		return protocol.RequestUserInputResponse{}, nil
	}}
	res, err := New(Options{}).Handle(context.Background(), env, call(question))
	if err != nil || !asked || res.Output != `{"answers":{}}` {
		t.Errorf("%+v, %v (asked %v)", res, err, asked)
	}
}
