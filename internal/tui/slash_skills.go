package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// openSkills is /skills: the skills this folder's threads get, searchable; enter mentions
// the chosen one in the composer ($name), which loads it into the next message.
func (m *Model) openSkills(typed, _ string) {
	list := m.ui.host.Skills
	if list == nil {
		m.commandError(typed, "/skills is not available here: the host finds no skills.")
		return
	}
	p := &picker{title: "Skills", searchable: true, empty: "No skills found. Add one as SKILL.md under ~/.agents/skills/NAME or .agents/skills/NAME."}
	for _, s := range list() {
		label := s.Name
		if !s.Enabled {
			label += " (disabled)"
		}
		p.items = append(p.items, pickerItem{label: label, desc: s.Description, value: s.Name})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.input.InsertString("$" + it.value + " ")
		return nil
	}
	m.picker = p
	m.refresh()
}
