package tui

import (
	"strconv"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// ExperimentalFeature is one of Codex's experimental flags /experimental switches.
type ExperimentalFeature struct {
	Name, DisplayName, Description string
	Enabled                        bool
	// Unsupported, when set, says that gocodex does not honour the flag when it is on.
	Unsupported string
}

// experimentalCommand is /experimental: Codex's experimental flags with checkboxes; Enter
// switches the one under the cursor and saves `[features] NAME` in config.toml, as Codex
// does. They apply to new threads (or after a restart).
func (m *Model) experimentalCommand(typed, _ string) {
	if len(m.experimental) == 0 {
		m.commandError(typed, "/experimental: no experimental features are known.")
		return
	}
	m.openExperimental(0)
}

func (m *Model) openExperimental(selected int) {
	p := &picker{title: "Experimental features", subtitle: "Checked features are configured on. They take effect in new threads or after restarting gocodex.",
		selected: selected}
	for i, f := range m.experimental {
		box := "[ ] "
		if f.Enabled {
			box = "[x] "
		}
		desc := f.Description
		if f.Unsupported != "" {
			desc += " (" + f.Unsupported + ")"
		}
		p.items = append(p.items, pickerItem{label: box + f.DisplayName, desc: desc, value: strconv.Itoa(i)})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		i, _ := strconv.Atoi(it.value)
		f := &m.experimental[i]
		if m.settings.saveFeature != nil {
			if err := m.settings.saveFeature(f.Name, !f.Enabled); err != nil {
				m.tr.add(cell{kind: cellError, body: "/experimental: could not save features." + f.Name + ": " + err.Error()})
				m.refresh()
				return nil
			}
		}
		f.Enabled = !f.Enabled
		m.openExperimental(i)
		return nil
	}
	m.picker = p
}
