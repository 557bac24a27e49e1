package tui

import "strings"

// warningsCommand is /warnings: the warnings this session showed, together.
func (m *Model) warningsCommand(_, _ string) {
	var list []string
	for _, c := range m.tr.cells {
		if c.kind == cellWarning {
			list = append(list, "⚠ "+c.body)
		}
	}
	body := "No warnings"
	if len(list) > 0 {
		body = strings.Join(list, "\n")
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellCard, body: m.st.bold.Render("Warnings") + "\n\n" + body})
	m.refresh()
}
