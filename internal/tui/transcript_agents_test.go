package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// TestTranscriptShowsSubagents: a spawn, the wait and the child's end each show.
func TestTranscriptShowsSubagents(t *testing.T) {
	tr := newTranscript()
	item := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	started := items.SubAgentActivityCore{Type: items.CoreSubAgentActivity, ID: "s1", Kind: "started", AgentThreadID: "c", AgentPath: "/root/worker"}
	wait := items.CollabCallCore{Type: items.CoreCollabCall, ID: "w1", Tool: "wait", Status: "inProgress"}
	done := started
	done.ID, done.Kind = "s2", "completed"
	for _, ev := range []protocol.EventMsg{
		protocol.ItemStartedEvent{Item: item(started)}, protocol.ItemCompletedEvent{Item: item(started)},
		protocol.ItemStartedEvent{Item: item(wait)},
		protocol.ItemStartedEvent{Item: item(done)}, protocol.ItemCompletedEvent{Item: item(done)},
	} {
		tr.apply(ev)
	}
	wait.Status = "completed"
	tr.apply(protocol.ItemCompletedEvent{Item: item(wait)})
	var got []string
	for _, c := range tr.cells {
		got = append(got, c.title+c.body)
	}
	want := "Sub-agent /root/worker started|Waited for sub-agents|Sub-agent /root/worker finished"
	if strings.Join(got, "|") != want {
		t.Errorf("cells %q, want %q", strings.Join(got, "|"), want)
	}
}
