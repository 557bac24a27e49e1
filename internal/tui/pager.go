package tui

import (
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// The transcript pager (Ctrl+T, as Codex's): the whole conversation on the alternate screen,
// scrollable, closed with q, Esc or Ctrl+T. In inline mode the cells that finish meanwhile
// are written to the scrollback once it closes.

func (m *Model) openPager() {
	var parts []string
	for _, c := range m.tr.cells {
		parts = append(parts, renderCell(c, m.width, m.st))
	}
	m.pager = &scroller{}
	m.pager.setContent(strings.Join(parts, "\n\n"))
	m.pager.setHeight(m.height - 2)
	m.pager.gotoBottom()
}

// pagerKey handles a key while the pager is open.
func (m *Model) pagerKey(ks string) tea.Cmd {
	p := m.pager
	switch ks {
	case "q", "esc", "ctrl+t":
		m.pager = nil
	case "up", "k":
		p.off = max(0, p.off-1)
	case "down", "j":
		p.off = min(p.maxOffset(), p.off+1)
	case "pgup", "b":
		p.pageUp()
	case "pgdown", "space", "f":
		p.pageDown()
	case "home", "g":
		p.off = 0
	case "end", "G":
		p.gotoBottom()
	}
	return nil
}

func (m *Model) pagerView() tea.View {
	title := m.st.bold.Render("Transcript") + m.st.dim.Render("  ↑/↓ scroll · pgup/pgdn page · q close")
	v := tea.NewView(truncate(title, m.width) + "\n" + m.pager.view() + "\n" + m.st.dim.Render(strings.Repeat("─", m.width)))
	v.AltScreen = true
	v.WindowTitle = "gocodex"
	return v
}
