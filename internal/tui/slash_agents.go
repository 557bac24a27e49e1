package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// /agents and /subagents (multi_agent_v2): the thread's sub-agents, each with a transcript
// of its own built from the events the host delivers; choosing one shows its transcript in
// place of the main thread's, and choosing the main thread shows that again.

// subagentMsg is one event of a sub-agent, delivered by the host (UIHost.WatchSubagents).
type subagentMsg struct {
	childID, parentID string
	ev                protocol.Event
}

// agentView is one sub-agent: its thread id and the transcript of its events, whose first
// cell says which sub-agent it is.
type agentView struct {
	id string
	tr transcript
}

// agentsState is the thread's sub-agents, in the order they first spoke, and which one is
// shown (nil: the main thread, whose transcript is kept in main meanwhile).
type agentsState struct {
	list    []*agentView
	viewing *agentView
	main    transcript
}

func (s *agentsState) find(id string) *agentView {
	for _, a := range s.list {
		if a.id == id {
			return a
		}
	}
	return nil
}

// mainTranscript is the main thread's transcript, shown or not.
func (m *Model) mainTranscript() *transcript {
	if m.agents.viewing != nil {
		return &m.agents.main
	}
	return &m.tr
}

// subagentEvent files a sub-agent's event in its transcript; a child of another thread (a
// replaced one) is ignored.
func (m *Model) subagentEvent(msg subagentMsg) {
	a := m.agents.find(msg.childID)
	if a == nil {
		if msg.parentID != m.threadID && m.agents.find(msg.parentID) == nil {
			return
		}
		a = &agentView{id: msg.childID, tr: newTranscript()}
		a.tr.add(cell{kind: cellInfo})
		m.agents.list = append(m.agents.list, a)
	}
	if a == m.agents.viewing {
		if m.tr.apply(msg.ev.Msg) {
			m.refresh()
		}
		return
	}
	a.tr.apply(msg.ev.Msg)
}

// agentLabel is how a sub-agent is named: its path in the tree (from the main thread's
// spawn lines), else its thread id.
func (m *Model) agentLabel(id string) string {
	if p := m.mainTranscript().subagents[id]; p != "" {
		return p
	}
	return id
}

// openAgentsPicker is /subagents (and /agents): the main thread and its sub-agents, as
// Codex 0.171's /subagents lists them.
func (m *Model) openAgentsPicker(_, _ string) {
	p := &picker{title: "Subagents", subtitle: "Select an agent to watch."}
	p.items = append(p.items, pickerItem{label: "• Main [default]", desc: m.threadID, value: "", current: m.agents.viewing == nil})
	for _, a := range m.agents.list {
		cur := a == m.agents.viewing
		p.items = append(p.items, pickerItem{label: "• " + m.agentLabel(a.id), desc: a.id, value: a.id, current: cur})
		if cur {
			p.selected = len(p.items) - 1
		}
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.viewAgent(it.value)
		return nil
	}
	m.picker = p
}

// viewAgent shows sub-agent id's transcript ("" the main thread's).
func (m *Model) viewAgent(id string) {
	next := m.agents.find(id)
	if next == m.agents.viewing {
		return
	}
	if cur := m.agents.viewing; cur != nil {
		cur.tr = m.tr
	} else {
		m.agents.main = m.tr
	}
	if next == nil {
		m.tr, m.agents.main = m.agents.main, transcript{}
	} else {
		// The path is known once the main thread drew the spawn: name it now, drawn afresh.
		next.tr.cells[0].body = "Sub-agent " + m.agentLabel(id) + " (thread " + id + "); /agents to switch back to the main thread"
		next.tr.rendered, next.tr.prefix, next.tr.prefixCells = nil, nil, 0
		m.tr = next.tr
	}
	m.agents.viewing = next
	m.vp = scroller{}
	m.flushed = 0
	m.refresh()
}

// viewingSubagent answers a message typed while a sub-agent is shown: it is not sent.
func (m *Model) viewingSubagent(text string) bool {
	if m.agents.viewing == nil || len(text) > 0 && text[0] == '/' {
		return false
	}
	m.tr.add(cell{kind: cellError, body: "This is sub-agent " + m.agentLabel(m.agents.viewing.id) + "'s thread, which takes no messages from here: /agents to switch back to the main thread."})
	m.refresh()
	return true
}
