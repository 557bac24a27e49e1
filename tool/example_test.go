package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/tool"
)

// upper is a tool that upper-cases its argument. A program offers it to the model through
// agent.ThreadConfig.ExtraTools.
type upper struct{}

func (upper) Spec() tool.Spec {
	return tool.Spec(`{"type":"function","name":"upper","description":"Upper-cases a text.",` +
		`"strict":false,"parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)
}

func (upper) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct{ Text string }
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		// The model sent bad arguments: it reads the failure and may try again.
		return tool.Result{Output: "invalid arguments: " + err.Error()}, nil
	}
	return tool.Result{Output: strings.ToUpper(args.Text), Success: true}, nil
}

// The engine calls Handle with each call the model makes; a failure the model should see is
// a Result, not an error.
func ExampleHandler() {
	var h tool.Handler = upper{}
	for _, args := range []string{`{"text":"hello"}`, `not json`} {
		res, err := h.Handle(context.Background(), &tool.Env{}, tool.Call{Kind: tool.FunctionCall, CallID: "c1", Name: "upper", Arguments: args})
		fmt.Println(res.Success, res.Output, err)
	}
	// Output:
	// true HELLO <nil>
	// false invalid arguments: invalid character 'o' in literal null (expecting 'u') <nil>
}
