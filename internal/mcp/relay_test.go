package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
)

func TestRelayKeepsEventsUntilAttached(t *testing.T) {
	var r Relay
	r.Emit(protocol.McpStartupUpdateEvent{Server: "a"})
	r.Emit(protocol.McpStartupUpdateEvent{Server: "b"})
	var got []protocol.EventMsg
	r.Attach(func(ev protocol.EventMsg) { got = append(got, ev) })
	r.Emit(protocol.McpStartupCompleteEvent{Ready: []string{"a"}})
	want := []protocol.EventMsg{
		protocol.McpStartupUpdateEvent{Server: "a"},
		protocol.McpStartupUpdateEvent{Server: "b"},
		protocol.McpStartupCompleteEvent{Ready: []string{"a"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	r.Attach(nil)
	r.Emit(protocol.McpStartupUpdateEvent{Server: "late"})
	if len(got) != 3 {
		t.Errorf("event after detach delivered: %v", got)
	}
}
