package tui

import (
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/atomicfile"
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// conversationMarkdown is the conversation as Codex 0.171's /export writes it: a title, then
// each message under "## User" or "## Assistant".
func (m *Model) conversationMarkdown() string {
	var b strings.Builder
	b.WriteString("# Codex conversation\n")
	for _, c := range m.tr.cells {
		role := ""
		switch c.kind {
		case cellUser:
			role = "User"
		case cellAgent:
			role = "Assistant"
		default:
			continue
		}
		if strings.TrimSpace(c.body) == "" {
			continue
		}
		b.WriteString("\n## " + role + "\n\n" + strings.TrimRight(c.body, "\n") + "\n")
	}
	return b.String()
}

// exportCommand is /export: the conversation as Markdown, to the clipboard or a file
// (`/export PATH` writes that file at once).
func (m *Model) exportCommand(typed, args string) {
	if path := strings.TrimSpace(args); path != "" {
		m.exportTo(path)
		return
	}
	p := &picker{title: "Export conversation", subtitle: "Save the complete conversation as Markdown"}
	p.items = []pickerItem{
		{label: "Copy to clipboard", desc: "Copy the complete Markdown transcript", value: "copy"},
		{label: "Save to file", desc: "Choose a Markdown filename", value: "file"},
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		if it.value == "copy" {
			m.info("Copied the conversation to the clipboard (OSC 52; the terminal does not confirm it).")
			return copyToClipboard(m.conversationMarkdown())
		}
		m.picker = &picker{title: "Save conversation", searchable: true, prompt: "File: ",
			filter:  "codex-session-" + m.threadID + ".md",
			onEnter: func(m *Model, name string) tea.Cmd { m.exportTo(name); return nil }}
		return nil
	}
	m.picker = p
}

// exportTo writes the conversation to path (relative to the work folder), whole or not at
// all: a temporary file beside it is renamed into place.
func (m *Model) exportTo(path string) {
	path = strings.TrimSpace(path)
	if path == "" {
		m.tr.add(cell{kind: cellError, body: "/export: no file name given."})
		m.refresh()
		return
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.header.Cwd, path)
	}
	if err := atomicfile.Write(path, []byte(m.conversationMarkdown()), 0o644); err != nil {
		m.tr.add(cell{kind: cellError, body: "/export: " + err.Error()})
		m.refresh()
		return
	}
	m.info("Saved conversation to " + path)
}
