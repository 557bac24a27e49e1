package tui

import (
	"fmt"
	"strings"

	"github.com/atotto/clipboard"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// info adds a line of the UI's own to the transcript.
func (m *Model) info(body string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellInfo, body: body})
	m.refresh()
}

// lastAnswer is the text of the model's last message ("" before the first).
func (m *Model) lastAnswer() string {
	for i := len(m.tr.cells) - 1; i >= 0; i-- {
		if c := m.tr.cells[i]; c.kind == cellAgent && strings.TrimSpace(c.body) != "" {
			return c.body
		}
	}
	return ""
}

// codeBlock is one fenced block of an answer.
type codeBlock struct{ lang, code string }

// codeBlocks are the fenced code blocks of a Markdown text, in order.
func codeBlocks(md string) []codeBlock {
	src := []byte(md)
	var out []codeBlock
	ast.Walk(mdParser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering {
			r := mdRenderer{src: src}
			out = append(out, codeBlock{lang: string(fc.Language(src)), code: strings.TrimSuffix(r.rawLines(fc), "\n")})
		}
		return ast.WalkContinue, nil
	})
	return out
}

// copyToClipboard sets the clipboard through the terminal (OSC 52, which reaches the
// person's clipboard over SSH and through tmux) and, where there is one, the system's.
func copyToClipboard(s string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(s), func() tea.Msg {
		_ = clipboard.WriteAll(s) // no system clipboard (a server, SSH): OSC 52 alone
		return nil
	})
}

// copyCommand is /copy: the last answer, whole or one of its code blocks, to the clipboard.
func (m *Model) copyCommand(_, _ string) {
	answer := m.lastAnswer()
	if answer == "" {
		m.info("Nothing to copy")
		return
	}
	p := &picker{title: "Copy to clipboard"}
	p.items = append(p.items, pickerItem{label: "Whole response", desc: firstLine(answer), value: answer})
	for i, b := range codeBlocks(answer) {
		label := fmt.Sprintf("Code block %d", i+1)
		if b.lang != "" {
			label += " (" + b.lang + ")"
		}
		p.items = append(p.items, pickerItem{label: label, desc: firstLine(b.code), value: b.code})
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		m.info("Copied " + it.label + " to the clipboard (OSC 52; the terminal does not confirm it).")
		return copyToClipboard(it.value)
	}
	m.picker = p
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
