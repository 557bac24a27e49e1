package protocol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Codex accepts the answer op under its old tag too.
func TestUserInputAnswerAlias(t *testing.T) {
	op, err := DecodeOp([]byte(`{"type":"request_user_input_response","id":"turn-1","response":{"answers":{"q":{"answers":["yes"]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := UserInputAnswerOp{ID: "turn-1", Response: RequestUserInputResponse{Answers: map[string]RequestUserInputAnswer{"q": {Answers: []string{"yes"}}}}}
	if diff := cmp.Diff(want, op); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// The model reads the response as JSON: an empty response is {"answers":{}}, never null.
func TestRequestUserInputResponseJSON(t *testing.T) {
	for _, tc := range []struct {
		r    RequestUserInputResponse
		want string
	}{
		{RequestUserInputResponse{}, `{"answers":{}}`},
		{RequestUserInputResponse{Answers: map[string]RequestUserInputAnswer{"a": {}}}, `{"answers":{"a":{"answers":[]}}}`},
		{RequestUserInputResponse{Answers: map[string]RequestUserInputAnswer{"a": {Answers: []string{"<x> & y"}}}}, `{"answers":{"a":{"answers":["<x> & y"]}}}`},
	} {
		b, err := Marshal(tc.r)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.r, b, err, tc.want)
		}
	}
}
