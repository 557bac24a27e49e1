package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// pickerItem is one choice of a picker.
type pickerItem struct {
	label, desc string
	value       string
	current     bool
}

// picker is a list the person chooses from (/model, /permissions, /resume), drawn in place
// of the composer. A searchable picker filters its items by what is typed.
type picker struct {
	title      string
	subtitle   string
	items      []pickerItem
	searchable bool
	filter     string
	selected   int // index into shown()
	empty      string
	onPick     func(m *Model, it pickerItem) tea.Cmd
	// onMove, when set, follows the selection (a live preview); onCancel undoes it on Esc.
	// preview draws beside the list on a wide terminal.
	onMove func(m *Model, it pickerItem)
	// onEnter makes the picker a text entry: filter is the text (prompt its label) and
	// Enter hands it over, whatever is listed.
	onEnter  func(m *Model, text string) tea.Cmd
	prompt   string
	onCancel func(m *Model)
	preview  func(m *Model, it pickerItem) string
}

// maxPickerRows bounds the rows shown at once.
const maxPickerRows = 10

// shown is the items matching the filter: every word of it appears in the label or the
// description, case ignored.
func (p *picker) shown() []pickerItem {
	words := strings.Fields(strings.ToLower(p.filter))
	if len(words) == 0 {
		return p.items
	}
	var out []pickerItem
	for _, it := range p.items {
		hay := strings.ToLower(it.label + " " + it.desc + " " + it.value)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, it)
		}
	}
	return out
}

// pickerKey handles a key while a picker is open.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	items := p.shown()
	if p.onMove != nil {
		defer func() {
			if m.picker == p {
				if now := p.shown(); p.selected < len(now) {
					p.onMove(m, now[p.selected])
				}
			}
		}()
	}
	switch ks := k.String(); ks {
	case "esc":
		m.picker = nil
		if p.onCancel != nil {
			p.onCancel(m)
		}
	case "up", "ctrl+p":
		if len(items) > 0 {
			p.selected = (p.selected - 1 + len(items)) % len(items)
		}
	case "down", "ctrl+n":
		if len(items) > 0 {
			p.selected = (p.selected + 1) % len(items)
		}
	case "enter":
		if p.onEnter != nil {
			m.picker = nil
			return p.onEnter(m, p.filter)
		}
		if p.selected < len(items) {
			m.picker = nil
			return p.onPick(m, items[p.selected])
		}
	case "backspace":
		if p.searchable && p.filter != "" {
			r := []rune(p.filter)
			p.filter, p.selected = string(r[:len(r)-1]), 0
		}
	default:
		if !p.searchable && len(ks) == 1 && ks[0] >= '1' && ks[0] <= '9' {
			if i := int(ks[0] - '1'); i < len(items) {
				m.picker = nil
				return p.onPick(m, items[i])
			}
		}
		if p.searchable && k.Text != "" {
			p.filter += k.Text
			p.selected = 0
		}
	}
	return nil
}

func (m *Model) pickerView() string {
	p := m.picker
	items := p.shown()
	lines := []string{m.st.bold.Render(p.title)}
	if p.subtitle != "" {
		lines = append(lines, m.st.dim.Render(p.subtitle))
	}
	if p.searchable {
		prompt := p.prompt
		if prompt == "" {
			prompt = "Search: "
		}
		lines = append(lines, m.st.dim.Render(prompt)+p.filter+"▏")
	}
	lines = append(lines, "")
	start := 0
	if p.selected >= maxPickerRows {
		start = p.selected - maxPickerRows + 1
	}
	end := min(len(items), start+maxPickerRows)
	labelWidth := 0
	for _, it := range items[start:end] {
		labelWidth = max(labelWidth, lipgloss.Width(itemLabel(it)))
	}
	for i := start; i < end; i++ {
		it := items[i]
		label := itemLabel(it)
		row := fmt.Sprintf("%d. %s", i+1, label+strings.Repeat(" ", labelWidth-lipgloss.Width(label)))
		if it.desc != "" {
			row += "  " + it.desc
		}
		if i == p.selected {
			row = m.st.bold.Render("› " + row)
		} else {
			row = "  " + row
		}
		lines = append(lines, truncate(row, max(10, m.width-4)))
	}
	if len(items) == 0 && p.onEnter == nil {
		empty := p.empty
		if empty == "" {
			empty = "No matches."
		}
		lines = append(lines, m.st.dim.Render("  "+empty))
	}
	hint := "enter select · esc back"
	switch {
	case p.onEnter != nil:
		hint = "enter submit · esc back"
	case p.searchable:
		hint = "type to search · ↑/↓ move · enter select · esc back"
	}
	if p.preview != nil && m.width >= minPreviewWidth && p.selected < len(items) {
		lines = besidePreview(lines, p.preview(m, items[p.selected]), m.width-4)
	}
	lines = append(lines, "", m.st.dim.Render(hint))
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Width(max(20, m.width)).Render(strings.Join(lines, "\n"))
}

func itemLabel(it pickerItem) string {
	if it.current {
		return it.label + " (current)"
	}
	return it.label
}

// minPreviewWidth is the narrowest terminal a picker's preview is drawn on.
const minPreviewWidth = 100

// besidePreview puts the preview's lines to the right of the list's, the list taking the
// left half of width.
func besidePreview(list []string, preview string, width int) []string {
	left := width / 2
	pv := strings.Split(preview, "\n")
	out := make([]string, max(len(list), len(pv)+1))
	for i := range out {
		l := ""
		if i < len(list) {
			l = truncate(list[i], left-1)
		}
		out[i] = l + strings.Repeat(" ", max(0, left-lipgloss.Width(l)))
		// The preview starts on the list's second line, under the title.
		if j := i - 1; j >= 0 && j < len(pv) {
			out[i] += truncate(pv[j], width-left)
		}
		out[i] = strings.TrimRight(out[i], " ")
	}
	return out
}
