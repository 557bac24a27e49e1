package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// clearTerminal homes the cursor, erases the screen, then the scrollback (CSI 3 J), as
// Codex's /clear does; the scrollback goes last because some terminals (tmux) push an erased
// screen into it. The renderer then draws afresh (tea.ClearScreen).
const clearTerminal = "\x1b[H\x1b[2J\x1b[3J"

// clearCommand is /clear: the terminal is cleared and a new chat starts.
func (m *Model) clearCommand(typed, _ string) {
	if m.hooks.NewThread == nil {
		m.commandError(typed, "/clear: this session cannot open new threads.")
		return
	}
	m.headerShown = false
	m.pending = tea.Sequence(tea.Raw(clearTerminal), tea.ClearScreen, openSession("new", m.hooks.NewThread))
}
