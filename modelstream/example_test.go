package modelstream_test

import (
	"context"
	"fmt"
	"io"

	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// echo is a Streamer that answers every prompt with the text of its last input item: a
// scripted model, as a test or an embedding program writes one.
type echo struct{}

func (echo) Stream(ctx context.Context, p modelstream.Prompt, obs modelstream.RetryObserver) (modelstream.Stream, error) {
	text := "nothing to echo"
	if n := len(p.Input); n > 0 {
		if m, ok := p.Input[n-1].(protocol.MessageItem); ok && len(m.Content) > 0 {
			text = m.Content[0].Text
		}
	}
	reply := protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: text}}}
	return &events{list: []modelstream.ResponseEvent{
		modelstream.OutputTextDelta{Delta: text},
		modelstream.OutputItemDone{Item: reply},
		modelstream.Completed{ResponseID: "resp_1"},
	}}, nil
}

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

// A thread reads one response per prompt until io.EOF, switching on the event types it needs.
func ExampleStreamer() {
	var s modelstream.Streamer = echo{}
	ctx := context.Background()
	prompt := modelstream.Prompt{Model: "scripted", Input: []protocol.ResponseItem{
		protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: "ping"}}},
	}}
	st, err := s.Stream(ctx, prompt, nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	for {
		ev, err := st.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		switch ev := ev.(type) {
		case modelstream.OutputTextDelta:
			fmt.Println("delta:", ev.Delta)
		case modelstream.Completed:
			fmt.Println("completed:", ev.ResponseID)
		}
	}
	// Output:
	// delta: ping
	// completed: resp_1
}
