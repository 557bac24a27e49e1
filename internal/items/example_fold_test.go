package items_test

import (
	"fmt"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// A face (an editor protocol, say) renders the fold's changes; it never pairs events itself.
func ExampleFold() {
	f := items.NewFold(items.FoldOptions{})
	events := []protocol.EventMsg{
		protocol.TurnStartedEvent{TurnID: "t1"},
		protocol.ExecCommandBeginEvent{CallID: "call-1", Command: []string{"ls"}},
		protocol.ExecCommandOutputDeltaEvent{CallID: "call-1", Chunk: []byte("a.txt\n")},
		protocol.ExecCommandEndEvent{CallID: "call-1", Command: []string{"ls"}, AggregatedOutput: "a.txt\n"},
		protocol.AgentMessageDeltaEvent{Delta: "Done"},
		protocol.AgentMessageEvent{Message: "Done."},
		protocol.TurnCompleteEvent{TurnID: "t1"},
	}
	for _, ev := range events {
		for _, ch := range f.Apply(ev) {
			switch it := ch.Body.(type) {
			case *items.Command:
				if ch.Phase == items.Completed {
					fmt.Printf("%s %s: %s exit %d\n", ch.Phase, ch.ID, items.JoinCommand(it.Argv), *it.ExitCode)
				} else {
					fmt.Printf("%s %s\n", ch.Phase, ch.ID)
				}
			case *items.AgentMessage:
				fmt.Printf("%s %s %q\n", ch.Phase, ch.ID, it.Text+ch.Delta.Text)
			}
		}
	}
	// Output:
	// item.started call-1
	// item.updated call-1
	// item.completed call-1: ls exit 0
	// item.started item_0 ""
	// item.updated item_0 "Done"
	// item.completed item_0 "Done."
}
