package tui

import (
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// Inline mode (the default): finished cells are written once into the terminal's own
// scrollback, above the program, and never drawn again; the program redraws only the live
// area (the cells still changing, the status line and the composer). The terminal keeps its
// scrollback, search and copy-paste, and a long session costs no more to draw than a short
// one. The alternate-screen mode instead draws the whole transcript in a viewport.

// quit ends the program once what is being written to the scrollback is there (see
// Update); the last frame keeps only the cells not yet in the scrollback.
func (m *Model) quit() tea.Cmd {
	m.done, m.quitPending = true, true
	return nil
}

// printedMsg says the scrollback text in flight has been written.
type printedMsg struct{}

// nextPrint writes the queued scrollback text, one write in flight at a time: commands run
// concurrently, so two prints issued by consecutive updates could otherwise land in the
// scrollback in the wrong order.
func (m *Model) nextPrint() tea.Cmd {
	if m.printing || len(m.printQueue) == 0 {
		return nil
	}
	text, print := strings.Join(m.printQueue, "\n"), m.print
	m.printQueue, m.printing = nil, true
	return func() tea.Msg {
		print(text)
		return printedMsg{}
	}
}

// quitWhenWritten ends the program once quit was asked for and nothing is left to write.
func (m *Model) quitWhenWritten() tea.Cmd {
	if !m.quitPending || m.printing || len(m.printQueue) > 0 {
		return nil
	}
	m.quitPending = false
	return tea.Quit
}

// flushScrollback writes the closed cells that follow what was already written (up to the
// first cell still open, to keep the order) into the scrollback.
func (m *Model) flushScrollback() tea.Cmd {
	if !m.inline || m.pager != nil {
		return nil
	}
	var parts []string
	if !m.headerShown {
		m.headerShown = true
		parts = append(parts, m.headerView())
	}
	end := m.flushed
	for end < len(m.tr.cells) && !m.tr.cells[end].open {
		end++
	}
	for i := m.flushed; i < end; i++ {
		parts = append(parts, renderCell(m.tr.cells[i], m.width, m.st))
	}
	m.flushed = end
	if len(parts) == 0 {
		return nil
	}
	text := "\n" + strings.Join(parts, "\n\n")
	if m.scrollback != nil {
		m.scrollback(text)
		return nil
	}
	m.printQueue = append(m.printQueue, text)
	return m.nextPrint()
}

// liveView is the inline frame: the cells not yet in the scrollback, the status line and the
// bottom pane. Open cells are capped to the screen so a long streaming answer scrolls inside
// the live area until it is finished and written out whole.
func (m *Model) liveView() string {
	var cells []string
	for i := m.flushed; i < len(m.tr.cells); i++ {
		cells = append(cells, renderCell(m.tr.cells[i], m.width, m.st))
	}
	live := strings.Join(cells, "\n\n")
	if m.done {
		return live
	}
	bottom := m.statusView() + "\n" + m.bottomView()
	room := max(1, m.height-strings.Count(bottom, "\n")-2)
	if live != "" {
		lines := strings.Split(live, "\n")
		if len(lines) > room {
			lines = lines[len(lines)-room:]
		}
		live = "\n" + strings.Join(lines, "\n") + "\n"
	}
	return live + bottom
}
