package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// configCommand is /config: the UI's preferences in one list, each opening its own picker
// or switching at once (Codex 0.171's panel, the settings gocodex has). Saved ones go to
// config.toml's [tui] as their own commands save them.
func (m *Model) configCommand(_, _ string) {
	onOff := func(on bool) string {
		if on {
			return "[x] On"
		}
		return "[ ] Off"
	}
	mode := "Scrollback"
	if !m.inline {
		mode = "Fullscreen"
	}
	p := &picker{title: "Configuration", subtitle: "Changes save automatically"}
	p.items = []pickerItem{
		{label: "Theme", desc: m.st.md.theme + " ›  Choose a syntax color palette with a live preview", value: "theme"},
		{label: "TUI mode", desc: mode + " ›  Scrollback or fullscreen for the next launch", value: "tui"},
		{label: "Vim mode", desc: onOff(m.vim.on) + "  Vim keys in the composer (this session)", value: "vim"},
		{label: "Raw output", desc: onOff(m.st.md.raw) + "  Answers as written, for clean terminal selection", value: "raw"},
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		switch it.value {
		case "theme":
			m.openThemePicker("/theme", "")
		case "tui":
			m.tuiModeCommand("/tui", "")
		case "vim":
			m.vimCommand("/vim", "")
		case "raw":
			m.rawCommand("/raw", "")
		}
		return nil
	}
	m.picker = p
}
