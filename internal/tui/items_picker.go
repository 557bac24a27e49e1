package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// itemChoice is one row of an items picker: an item id and what it shows.
type itemChoice struct {
	id, desc string
	on       bool
}

// itemsPicker chooses and orders the items of a line (/statusline, /title), as Codex's:
// space toggles, ←/→ move the highlighted item, typing filters, enter saves, esc cancels.
// A switch row (the status line's "Use theme colors") may sit above the items.
type itemsPicker struct {
	title, subtitle string
	// switchLabel, when set, is a first row toggled like an item but not part of the list.
	switchLabel, switchDesc string
	switchOn                bool
	choices                 []itemChoice
	filter                  string
	selected                int // index into rows()
	// preview draws the line with the chosen items; save keeps them.
	preview func(m *Model, ids []string, switchOn bool) string
	save    func(m *Model, ids []string, switchOn bool)
}

// maxItemRows bounds the rows shown at once, as Codex's picker does.
const maxItemRows = 8

// newItemsPicker lists the enabled ids first, in their order, then the rest of the catalog.
func newItemsPicker(catalog []itemChoice, enabled []string) *itemsPicker {
	p := &itemsPicker{}
	descs := map[string]string{}
	for _, c := range catalog {
		descs[c.id] = c.desc
	}
	seen := map[string]bool{}
	for _, id := range enabled {
		if d, ok := descs[id]; ok && !seen[id] {
			p.choices = append(p.choices, itemChoice{id: id, desc: d, on: true})
			seen[id] = true
		}
	}
	for _, c := range catalog {
		if !seen[c.id] {
			p.choices = append(p.choices, itemChoice{id: c.id, desc: c.desc})
		}
	}
	return p
}

// row is what a visible row is: the switch (index -1) or a choice.
func (p *itemsPicker) rows() []int {
	var out []int
	if p.switchLabel != "" && p.filter == "" {
		out = append(out, -1)
	}
	f := strings.ToLower(p.filter)
	for i, c := range p.choices {
		if f == "" || strings.Contains(strings.ToLower(c.id+" "+c.desc), f) {
			out = append(out, i)
		}
	}
	return out
}

// enabled are the chosen ids in their order.
func (p *itemsPicker) enabled() []string {
	out := []string{}
	for _, c := range p.choices {
		if c.on {
			out = append(out, c.id)
		}
	}
	return out
}

func (m *Model) itemsPickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.ui.items
	rows := p.rows()
	cur := -2
	if p.selected < len(rows) {
		cur = rows[p.selected]
	}
	switch ks := k.String(); ks {
	case "esc":
		m.ui.items = nil
	case "up", "ctrl+p":
		if len(rows) > 0 {
			p.selected = (p.selected - 1 + len(rows)) % len(rows)
		}
	case "down", "ctrl+n":
		if len(rows) > 0 {
			p.selected = (p.selected + 1) % len(rows)
		}
	case "space":
		switch {
		case cur == -1:
			p.switchOn = !p.switchOn
		case cur >= 0:
			p.choices[cur].on = !p.choices[cur].on
		}
	case "left", "right":
		if cur < 0 || p.filter != "" {
			break
		}
		to := cur - 1
		if ks == "right" {
			to = cur + 1
		}
		if to >= 0 && to < len(p.choices) {
			p.choices[cur], p.choices[to] = p.choices[to], p.choices[cur]
			if ks == "right" {
				p.selected++
			} else {
				p.selected--
			}
		}
	case "enter":
		m.ui.items = nil
		p.save(m, p.enabled(), p.switchOn)
	case "backspace":
		if p.filter != "" {
			r := []rune(p.filter)
			p.filter, p.selected = string(r[:len(r)-1]), 0
		}
	default:
		if k.Text != "" && k.Text != " " {
			p.filter += k.Text
			p.selected = 0
		}
	}
	return nil
}

func (m *Model) itemsPickerView() string {
	p := m.ui.items
	lines := []string{"  " + m.st.bold.Render(p.title), "  " + p.subtitle, ""}
	if p.filter == "" {
		lines = append(lines, "  "+m.st.dim.Render("Type to search"))
	} else {
		lines = append(lines, "  "+p.filter)
	}
	lines = append(lines, "")
	rows := p.rows()
	start := 0
	if p.selected >= maxItemRows {
		start = p.selected - maxItemRows + 1
	}
	end := min(len(rows), start+maxItemRows)
	idWidth := 0
	for _, r := range rows[start:end] {
		if r >= 0 {
			idWidth = max(idWidth, lipgloss.Width(p.choices[r].id))
		} else {
			idWidth = max(idWidth, lipgloss.Width(p.switchLabel))
		}
	}
	if start > 0 {
		lines = append(lines, "↑")
	}
	if len(rows) == 0 {
		lines = append(lines, "  "+m.st.dim.Render("no matches"))
	}
	for i := start; i < end; i++ {
		label, desc, on := p.switchLabel, p.switchDesc, p.switchOn
		if r := rows[i]; r >= 0 {
			label, desc, on = p.choices[r].id, p.choices[r].desc, p.choices[r].on
		}
		box := "[ ]"
		if on {
			box = "[x]"
		}
		row := box + " " + label + strings.Repeat(" ", idWidth-lipgloss.Width(label)) + "  " + desc
		mark := "  "
		if i == p.selected {
			mark = "› "
			row = m.st.bold.Render(row)
		}
		lines = append(lines, truncate(mark+row, m.width))
		if rows[i] == -1 {
			lines = append(lines, "  "+m.st.dim.Render(strings.Repeat("─", idWidth+6)))
		}
	}
	if end < len(rows) {
		lines = append(lines, "↓")
	}
	lines = append(lines, truncate("  "+p.preview(m, p.enabled(), p.switchOn), m.width),
		"  "+m.st.dim.Render("space toggle · ←/→ reorder · enter save · esc cancel"))
	return strings.Join(lines, "\n")
}

// plainItemsLine is the items picker in the plain line mode: a row's number (as the
// picker counts its visible rows, from 1) toggles it, an empty line saves, esc cancels.
func (m *Model) plainItemsLine(line string, key func(tea.Key)) {
	switch line {
	case "":
		key(tea.Key{Code: tea.KeyEnter})
	case "esc":
		key(tea.Key{Code: tea.KeyEscape})
	default:
		var n int
		if _, err := fmt.Sscanf(line, "%d", &n); err == nil && n >= 1 && n <= len(m.ui.items.rows()) {
			m.ui.items.selected = n - 1
			key(tea.Key{Code: tea.KeySpace, Text: " "})
		}
	}
}

// plainItemsPrompt lists every row numbered, for plainItemsLine.
func (m *Model) plainItemsPrompt() string {
	p := m.ui.items
	lines := []string{p.title, p.subtitle}
	for i, r := range p.rows() {
		label, desc, on := p.switchLabel, p.switchDesc, p.switchOn
		if r >= 0 {
			label, desc, on = p.choices[r].id, p.choices[r].desc, p.choices[r].on
		}
		box := "[ ]"
		if on {
			box = "[x]"
		}
		lines = append(lines, fmt.Sprintf("%d. %s %s  %s", i+1, box, label, desc))
	}
	return strings.Join(append(lines, p.preview(m, p.enabled(), p.switchOn),
		"Type a row's number to toggle it, an empty line to save, or esc:"), "\n")
}
