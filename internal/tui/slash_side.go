package tui

import (
	"context"
	"strings"
)

// side is /side: a side conversation that starts from the main thread's history and is
// recorded nowhere, so nothing said in it reaches the main thread; /side again returns to
// the main thread, its history as it was.
func (m *Model) side(typed, _ string) {
	if main := m.ui.sideMain; main != "" {
		if m.hooks.ResumeThread == nil {
			m.commandError(typed, "/side: the main thread cannot be reopened here.")
			return
		}
		m.pending = openSession("side-return", func(ctx context.Context) (Session, error) { return m.hooks.ResumeThread(ctx, main) })
		return
	}
	if m.ui.host.SideThread == nil || m.threadID == "" {
		m.commandError(typed, "/side: this thread is not recorded, so a side conversation cannot start from it.")
		return
	}
	if !m.conversationStarted() {
		m.commandError(typed, "'/side' is unavailable until the current conversation has started. Send a message first, then try /side again.")
		return
	}
	main, open := m.threadID, m.ui.host.SideThread
	m.pending = openSession("side", func(ctx context.Context) (Session, error) { return open(ctx, main) })
}

// conversationStarted says whether a message (not a command) was sent in this thread.
func (m *Model) conversationStarted() bool {
	for _, s := range m.sent {
		if !strings.HasPrefix(s, "/") {
			return true
		}
	}
	return false
}

// sideOpened finishes /side's switch (into the side conversation, or back to the main
// thread) and /worktree's. It reports false for the other verbs.
func (m *Model) sideOpened(verb, previous string) bool {
	switch verb {
	case "side":
		m.ui.sideMain = previous
		m.tr.add(cell{kind: cellInfo, body: "Side conversation: it knows the main conversation, and nothing said here reaches it. /side again returns to the main thread."})
	case "worktree":
		m.tr.add(cell{kind: cellInfo, body: "Now in the worktree " + m.header.Cwd + " (session " + m.threadID + ")"})
	case "side-return":
		m.ui.sideMain = ""
		m.tr.add(cell{kind: cellInfo, body: "Back in the main conversation " + m.threadID + " (the side conversation is discarded)."})
	default:
		return false
	}
	return true
}
