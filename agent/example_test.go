package agent_test

import (
	"context"
	"fmt"
	"io"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// oneAnswer is a ModelStreamer that always answers "hello" (a program implements
// modelstream.Streamer for its model, or uses gocodex's built-in Responses client).
type oneAnswer struct{}

func (oneAnswer) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (agent.ModelStream, error) {
	return &answerStream{events: []modelstream.ResponseEvent{
		modelstream.OutputTextDelta{Delta: "hello"},
		modelstream.OutputItemDone{Item: protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "hello"}}}},
		modelstream.Completed{ResponseID: "r1", Usage: &protocol.TokenUsage{InputTokens: 3, OutputTokens: 1, TotalTokens: 4}},
	}}, nil
}

type answerStream struct{ events []modelstream.ResponseEvent }

func (s *answerStream) Next(ctx context.Context) (modelstream.ResponseEvent, error) {
	if len(s.events) == 0 {
		return nil, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *answerStream) Close() error { return nil }

// A face starts a thread, submits input and reads events until the turn ends.
func Example() {
	ctx := context.Background()
	mgr := agent.NewThreadManager(nil)
	th, err := mgr.StartThread(ctx, agent.ThreadConfig{
		Model:          "gpt-5.5",
		Streamer:       oneAnswer{},
		Cwd:            "/tmp",
		ApprovalPolicy: protocol.ApprovalNever,
		SandboxPolicy:  protocol.NewReadOnlyPolicy(),
	})
	if err != nil {
		panic(err)
	}
	if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("hi")}}); err != nil {
		panic(err)
	}
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Msg.EventType())
		if done, ok := ev.Msg.(protocol.TurnCompleteEvent); ok {
			fmt.Println("answer:", *done.LastAgentMessage)
			break
		}
	}
	if err := mgr.Close(ctx); err != nil {
		panic(err)
	}
	// Output:
	// session_configured
	// task_started
	// user_message
	// agent_message_delta
	// agent_message
	// token_count
	// task_complete
	// answer: hello
}
