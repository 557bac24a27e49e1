package execcli_test

import (
	"os"

	"github.com/gocodex/gocodex/internal/execcli"
	"github.com/gocodex/gocodex/protocol"
)

func ExampleJSONWriter() {
	w := execcli.NewJSONWriter(os.Stdout)
	last := "Hi!"
	for _, msg := range []protocol.EventMsg{
		protocol.SessionConfiguredEvent{SessionID: "thread-1", Model: "gpt-5.5"},
		protocol.TurnStartedEvent{TurnID: "1"},
		protocol.AgentMessageDeltaEvent{Delta: "Hi"},
		protocol.AgentMessageEvent{Message: "Hi!"},
		protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{TotalTokenUsage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}},
		protocol.TurnCompleteEvent{TurnID: "1", LastAgentMessage: &last},
	} {
		if err := w.Handle(protocol.Event{ID: "1", Msg: msg}); err != nil {
			panic(err)
		}
	}
	// Output:
	// {"type":"thread.started","thread_id":"thread-1"}
	// {"type":"turn.started"}
	// {"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Hi!"}}
	// {"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0}}
}
