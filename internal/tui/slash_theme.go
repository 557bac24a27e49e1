package tui

import (
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// uiSettings are the UI's own settings and where they are kept: config.toml's [tui] table,
// Codex's keys (theme), so a setup carries over between Codex and gocodex.
type uiSettings struct {
	// save writes [tui] key = value into config.toml; nil keeps changes for this session
	// (tests, or a UI without a CODEX_HOME).
	save func(path []string, value any) error
	// saveFeature writes [features] name = on (/experimental).
	saveFeature func(name string, on bool) error
}

// persist saves [tui] key = value, reporting a failure as a warning: the setting holds for
// this session either way.
func (m *Model) persist(key string, value any) { m.persistPath([]string{key}, value) }

// persistPath saves [tui] path... = value.
func (m *Model) persistPath(path []string, value any) {
	if m.settings.save == nil {
		return
	}
	if err := m.settings.save(path, value); err != nil {
		m.tr.add(cell{kind: cellWarning, body: "Could not save tui." + strings.Join(path, ".") + " to config.toml: " + err.Error()})
	}
}

// setTheme draws code blocks in theme from now on, the transcript's cells again included.
func (m *Model) setTheme(theme string) {
	if m.st.md.theme == theme {
		return
	}
	m.st.md.theme = theme
	m.tr.rendered, m.tr.renderedWidth = nil, 0
}

// themePreviewCode is what the /theme picker draws in the theme under the cursor.
const themePreviewCode = "fn summarize(users: &[User]) -> String {\n" +
	"    // count the active ones\n" +
	"    let active = users.iter().filter(|u| u.active).count();\n" +
	"    format!(\"{active} active of {}\", users.len())\n" +
	"}"

// openThemePicker is /theme: chroma's styles, the selection previewed live on the
// transcript's code; Enter keeps it and saves `[tui] theme`, Esc goes back to the old one.
// "/theme NAME" picks directly.
func (m *Model) openThemePicker(typed, args string) {
	if name := strings.TrimSpace(args); name != "" {
		if !knownTheme(name) {
			m.commandError(typed, "Unknown theme "+name+"; /theme lists the themes.")
			return
		}
		m.setTheme(name)
		m.persist("theme", name)
		return
	}
	before := m.st.md.theme
	p := &picker{title: "Select Syntax Theme", subtitle: "Move up/down to live preview themes", searchable: true}
	for _, name := range themeNames() {
		p.items = append(p.items, pickerItem{label: name, value: name, current: name == before})
		if name == before {
			p.selected = len(p.items) - 1
		}
	}
	p.onMove = func(m *Model, it pickerItem) { m.setTheme(it.value) }
	p.onCancel = func(m *Model) { m.setTheme(before) }
	p.preview = func(m *Model, it pickerItem) string {
		ms := m.st.md
		ms.theme = it.value
		return highlightCode(themePreviewCode, "rust", ms)
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.setTheme(it.value)
		m.persist("theme", it.value)
		return nil
	}
	m.picker = p
}
