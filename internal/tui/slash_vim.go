package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// vimMode is the composer's Vim mode (/vim): Esc leaves Insert for Normal, where letters
// move and edit instead of typing. Each key is one switch and at most one composer edit,
// so typing stays as cheap as without it.
type vimMode struct {
	on, normal bool
	// pending is the first key of a two-key command (dd).
	pending string
}

// label is what the footer shows while Vim mode is on.
func (v vimMode) label() string {
	if v.normal {
		return "Vim: Normal"
	}
	return "Vim: Insert"
}

// vimCommand is /vim: Vim mode on (starting in Normal, as Codex's) or off, for this session.
func (m *Model) vimCommand(_, _ string) {
	m.vim = vimMode{on: !m.vim.on, normal: true}
	if m.vim.on {
		m.info("Vim mode enabled.")
	} else {
		m.info("Vim mode disabled.")
	}
}

// composerKey sends a key to the composer as if it had been pressed.
func (m *Model) composerKey(code rune, mod tea.KeyMod) {
	m.input, _ = m.input.Update(tea.KeyPressMsg(tea.Key{Code: code, Mod: mod}))
}

// vimKey handles k in Vim mode; it reports false for keys the UI handles as usual (Enter,
// control keys, Esc in Normal mode, everything in Insert mode but Esc).
func (m *Model) vimKey(k tea.KeyPressMsg) bool {
	ks := k.String()
	if !m.vim.normal {
		if ks == "esc" {
			m.vim.normal = true
			return true
		}
		return false
	}
	pending := m.vim.pending
	m.vim.pending = ""
	switch ks {
	case "i":
		m.vim.normal = false
	case "/":
		// A slash command starts from an empty composer in either mode.
		if m.input.Value() != "" {
			return true
		}
		m.vim.normal = false
		return false
	case "a":
		m.composerKey(tea.KeyRight, 0)
		m.vim.normal = false
	case "A":
		m.input.CursorEnd()
		m.vim.normal = false
	case "I":
		m.input.CursorStart()
		m.vim.normal = false
	case "o":
		m.input.CursorEnd()
		m.input.InsertRune('\n')
		m.vim.normal = false
	case "h":
		m.composerKey(tea.KeyLeft, 0)
	case "l":
		m.composerKey(tea.KeyRight, 0)
	case "j":
		m.input.CursorDown()
	case "k":
		m.input.CursorUp()
	case "w", "e":
		m.composerKey(tea.KeyRight, tea.ModAlt)
	case "b":
		m.composerKey(tea.KeyLeft, tea.ModAlt)
	case "0", "^":
		m.input.CursorStart()
	case "$":
		m.input.CursorEnd()
	case "x":
		m.composerKey(tea.KeyDelete, 0)
	case "D":
		m.composerKey('k', tea.ModCtrl)
	case "d":
		if pending == "d" { // dd: the line goes
			m.input.CursorEnd()
			m.composerKey('u', tea.ModCtrl)
			return true
		}
		m.vim.pending = "d"
	default:
		// Printable keys do not type in Normal mode; the rest (Enter, Esc, ctrl+…, arrows)
		// work as usual.
		return k.Text != ""
	}
	return true
}
