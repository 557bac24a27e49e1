package tui

import (
	"github.com/gocodex/gocodex/internal/items"
)

// The sub-agents of multi_agent_v2 in the transcript: one line when a sub-agent starts or
// finishes, and the parent's wait for them.

// markAgents draws a sub-agent item; false for other items.
func (t *transcript) markAgents(ch items.Change) bool {
	switch it := ch.Body.(type) {
	case *items.SubAgentActivity:
		if ch.Phase != items.Completed {
			return true // drawn once, when it completes
		}
		t.closeStreams()
		if t.subagents == nil {
			t.subagents = map[string]string{}
		}
		t.subagents[it.AgentThreadID] = it.AgentPath
		text := "Sub-agent " + it.AgentPath + " started"
		if it.Kind == "completed" {
			text = "Sub-agent " + it.AgentPath + " finished"
		}
		t.add(cell{kind: cellInfo, body: text})
		return true
	case *items.CollabCall:
		if ch.Phase == items.Started {
			t.closeStreams()
			t.calls[ch.ID] = t.add(cell{kind: cellTool, title: "Waiting for sub-agents", open: true})
			return true
		}
		if ch.Phase != items.Completed {
			return false
		}
		i, ok := t.calls[ch.ID]
		if !ok {
			i = t.add(cell{kind: cellTool})
		}
		delete(t.calls, ch.ID)
		t.cells[i].open, t.cells[i].title = false, "Waited for sub-agents"
		t.cells[i].failed = it.Status == "failed"
		return true
	}
	return false
}
