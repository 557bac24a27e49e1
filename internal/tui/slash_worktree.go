package tui

import (
	"context"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// openWorktree is /worktree: a new managed worktree of the repository (as --worktree makes
// one), where this conversation continues (a fork) or a new one starts. The checkout the UI
// started in is left as it is.
func (m *Model) openWorktree(typed, _ string) {
	open := m.ui.host.WorktreeThread
	if open == nil {
		m.commandError(typed, "/worktree is not available here: the host cannot make worktrees.")
		return
	}
	p := &picker{title: "Worktrees", items: []pickerItem{
		{label: "Continue current conversation", desc: "Preserve this conversation in the new checkout", value: "continue"},
		{label: "Start new conversation", desc: "Open a fresh conversation in the new checkout", value: "new"},
	}}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		from := ""
		if it.value == "continue" {
			if m.threadID == "" || !m.conversationStarted() {
				m.tr.add(cell{kind: cellError, body: "/worktree: there is no conversation to continue yet; start a new one instead."})
				m.refresh()
				return nil
			}
			from = m.threadID
		}
		m.tr.add(cell{kind: cellInfo, body: "Creating a worktree…"})
		m.refresh()
		return openSession("worktree", func(ctx context.Context) (Session, error) { return open(ctx, from) })
	}
	m.picker = p
	m.refresh()
}
