package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// tuiModeCommand is /tui: scrollback (inline) or fullscreen for the next launch, saved as
// Codex 0.171 saves it, `[tui] fullscreen_transcript`.
func (m *Model) tuiModeCommand(_, _ string) {
	p := &picker{title: "TUI mode for next launch", subtitle: "Restart to apply. Launch overrides still apply."}
	p.items = []pickerItem{
		{label: "Scrollback", desc: "Native terminal copy, paste and scrollback", value: "scrollback", current: m.inline},
		{label: "Fullscreen", desc: "Scroll within gocodex's fullscreen view", value: "fullscreen", current: !m.inline},
	}
	if !m.inline {
		p.selected = 1
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.persist("fullscreen_transcript", it.value == "fullscreen")
		m.info("Saved TUI mode: " + it.label + ". Restart gocodex to apply; launch overrides still apply.")
		return nil
	}
	m.picker = p
}
