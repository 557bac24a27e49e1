package tui

// rawCommand is /raw: answers are shown as the model wrote them, Markdown unrendered and
// unstyled, so a terminal selection copies them clean; again turns rendering back on.
func (m *Model) rawCommand(_, _ string) {
	m.st.md.raw = !m.st.md.raw
	m.tr.rendered, m.tr.renderedWidth = nil, 0
	if m.st.md.raw {
		m.info("Raw output mode on: transcript text is shown for clean terminal selection.")
	} else {
		m.info("Raw output mode off: rich transcript rendering restored.")
	}
}
