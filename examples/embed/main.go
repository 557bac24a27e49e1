// Command embed runs the gocodex engine inside a Go program: a thread with a custom tool
// (word_count), answered by a scripted model implemented right here, with no network.
//
//	go run ./embed
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run asks the scripted model to count the words of a sentence; the model calls word_count,
// reads its output and answers.
func run(ctx context.Context, out io.Writer) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	mgr := agent.NewThreadManager(nil)
	defer mgr.Close(ctx)
	th, err := mgr.StartThread(ctx, agent.ThreadConfig{
		Model:          "scripted",
		Streamer:       scriptedModel{},
		Cwd:            cwd,
		ApprovalPolicy: protocol.ApprovalNever,
		SandboxPolicy:  protocol.NewReadOnlyPolicy(),
		ExtraTools:     []tool.Handler{wordCount{}},
	})
	if err != nil {
		return err
	}
	op := protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("How many words in: the quick brown fox?")}}
	if _, err := th.Submit(op); err != nil {
		return err
	}
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			return err
		}
		switch msg := ev.Msg.(type) {
		case protocol.AgentMessageEvent:
			fmt.Fprintln(out, "assistant:", msg.Message)
		case protocol.ErrorEvent:
			return errors.New(msg.Message)
		case protocol.TurnCompleteEvent:
			fmt.Fprintln(out, "turn complete")
			return nil
		}
	}
}

// wordCount is a custom tool: a JSON-schema function the model may call.
type wordCount struct{}

func (wordCount) Spec() tool.Spec {
	return tool.Spec(`{"type":"function","name":"word_count","description":"Counts the words of a text.",` +
		`"strict":false,"parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)
}

func (wordCount) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		// Bad arguments are the model's to fix: a failed result, not an error.
		return tool.Result{Output: "invalid arguments: " + err.Error()}, nil
	}
	return tool.Result{Output: fmt.Sprint(len(strings.Fields(args.Text))), Success: true}, nil
}

// scriptedModel answers like a model would: it calls word_count first, then reports the
// tool's output.
type scriptedModel struct{}

func (scriptedModel) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (modelstream.Stream, error) {
	for _, item := range p.Input {
		if o, ok := item.(protocol.FunctionCallOutputItem); ok {
			return answer("There are " + o.Output.Content + " words."), nil
		}
	}
	call := protocol.FunctionCallItem{Name: "word_count", CallID: "call_1", Arguments: `{"text":"the quick brown fox"}`}
	return &events{list: []modelstream.ResponseEvent{
		modelstream.OutputItemDone{Item: call},
		modelstream.Completed{ResponseID: "resp_1"},
	}}, nil
}

func answer(text string) *events {
	msg := protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: text}}}
	return &events{list: []modelstream.ResponseEvent{
		modelstream.OutputTextDelta{Delta: text},
		modelstream.OutputItemDone{Item: msg},
		modelstream.Completed{ResponseID: "resp_2"},
	}}
}

// events is one scripted response.
type events struct{ list []modelstream.ResponseEvent }

func (e *events) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	if len(e.list) == 0 {
		return nil, io.EOF
	}
	ev := e.list[0]
	e.list = e.list[1:]
	return ev, nil
}

func (e *events) Close() error { return nil }
