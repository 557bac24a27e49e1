package tui

import (
	"strconv"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Agent messages are drawn from Markdown parsed by goldmark (CommonMark with GitHub's tables
// and strikethrough); fenced code is highlighted by chroma in the chosen theme (highlight.go).
// A message still streaming renders as it will once complete: an unclosed fence is a code
// block up to the end.

// mdStyles are the looks of rendered Markdown; theme is the chroma style of code blocks.
type mdStyles struct {
	heading, bold, italic, strike, code, link, quote, rule lipgloss.Style
	theme                                                  string
	// raw shows the Markdown as written (/raw).
	raw bool
}

func newMDStyles() mdStyles {
	return mdStyles{
		heading: lipgloss.NewStyle().Bold(true).Underline(true),
		bold:    lipgloss.NewStyle().Bold(true),
		italic:  lipgloss.NewStyle().Italic(true),
		strike:  lipgloss.NewStyle().Strikethrough(true),
		code:    lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		link:    lipgloss.NewStyle().Foreground(lipgloss.Cyan).Underline(true),
		quote:   lipgloss.NewStyle().Faint(true).Italic(true),
		rule:    lipgloss.NewStyle().Faint(true),
		theme:   defaultTheme,
	}
}

// mdParser is built on first use, not at start-up: most runs never draw Markdown.
var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
})

// renderMarkdown draws text for width columns.
func renderMarkdown(md string, width int, ms mdStyles) string {
	src := []byte(md)
	doc := mdParser().Parse(text.NewReader(src))
	r := mdRenderer{src: src, ms: ms}
	return strings.Join(r.blocks(doc, max(1, width)), "\n")
}

// mdRenderer draws one parsed document.
type mdRenderer struct {
	src []byte
	ms  mdStyles
}

// blocks draws the block children of n, a blank line between them unless n is a tight
// list item.
func (r *mdRenderer) blocks(n ast.Node, width int) []string {
	var out []string
	tight := false
	if li, ok := n.(*ast.ListItem); ok {
		if l, ok := li.Parent().(*ast.List); ok {
			tight = l.IsTight
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
		if lines == nil {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (r *mdRenderer) wrap(s string, width int) []string {
	return strings.Split(lipgloss.Wrap(s, max(1, width), ""), "\n")
}

// block draws one block node.
func (r *mdRenderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		st := r.ms.bold
		if n.Level <= 2 {
			st = r.ms.heading
		}
		var out []string
		for _, l := range r.wrap(r.plain(n), width) {
			out = append(out, st.Render(l))
		}
		return out
	case *ast.Paragraph, *ast.TextBlock:
		return r.wrap(r.inlines(n), width)
	case *ast.ThematicBreak:
		return []string{r.ms.rule.Render(strings.Repeat("─", max(1, min(width, 40))))}
	case *ast.List:
		return r.list(n, width)
	case *ast.Blockquote:
		var out []string
		for _, l := range r.blocks(n, width-2) {
			out = append(out, r.ms.quote.Render("▌ "+ansi.Strip(l)))
		}
		return out
	case *ast.FencedCodeBlock:
		return r.code(n, string(n.Language(r.src)), width)
	case *ast.CodeBlock:
		return r.code(n, "", width)
	case *ast.HTMLBlock:
		return r.wrap(strings.TrimRight(r.rawLines(n), "\n"), width)
	case *east.Table:
		return r.table(n, width)
	}
	if n.HasChildren() {
		return r.blocks(n, width)
	}
	return nil
}

// list draws a list's items with their markers, continuation lines aligned after them.
func (r *mdRenderer) list(l *ast.List, width int) []string {
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "- "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + string(l.Marker) + " "
			num++
		}
		if len(out) > 0 && !l.IsTight {
			out = append(out, "")
		}
		pad := strings.Repeat(" ", lipgloss.Width(marker))
		body := r.blocks(item, width-len(pad))
		if len(body) == 0 {
			body = []string{""}
		}
		for i, line := range body {
			if i == 0 {
				out = append(out, marker+line)
			} else if line == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+line)
			}
		}
	}
	return out
}

// rawLines is the source text of a block's lines.
func (r *mdRenderer) rawLines(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// code draws a code block indented by two columns, highlighted when its language is known.
func (r *mdRenderer) code(n ast.Node, lang string, width int) []string {
	src := strings.TrimSuffix(strings.ReplaceAll(r.rawLines(n), "\t", "    "), "\n")
	var out []string
	for _, l := range strings.Split(highlightCode(src, lang, r.ms), "\n") {
		for _, w := range r.wrap(l, width-2) {
			out = append(out, "  "+w)
		}
	}
	return out
}

// inlines draws the inline children of n: code spans, emphasis, links; a soft line break
// stays a line break, as the source was written.
func (r *mdRenderer) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.inline(c))
	}
	return b.String()
}

func (r *mdRenderer) inline(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		s := string(textValue(n, r.src))
		if n.SoftLineBreak() || n.HardLineBreak() {
			s += "\n"
		}
		return s
	case *ast.String:
		return string(n.Value)
	case *ast.CodeSpan:
		return r.ms.code.Render(r.plain(n))
	case *ast.Emphasis:
		if n.Level >= 2 {
			return r.ms.bold.Render(r.plain(n))
		}
		return r.ms.italic.Render(r.plain(n))
	case *east.Strikethrough:
		return r.ms.strike.Render(r.plain(n))
	case *ast.Link:
		label, dest := r.plain(n), string(n.Destination)
		if label == dest || label == "" {
			return r.ms.link.Render(dest)
		}
		return label + " (" + r.ms.link.Render(dest) + ")"
	case *ast.AutoLink:
		return r.ms.link.Render(string(n.URL(r.src)))
	case *ast.Image:
		return r.plain(n) + " (" + r.ms.link.Render(string(n.Destination)) + ")"
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		return b.String()
	}
	return r.inlines(n)
}

// plain is the text of n's inline children without styles (a styled span inside another
// would end the outer one's style early).
func (r *mdRenderer) plain(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(textValue(c, r.src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.URL(r.src))
		default:
			b.WriteString(r.plain(c))
		}
	}
	return b.String()
}

// textValue is a text node's characters, backslash escapes resolved (not in code spans).
func textValue(n *ast.Text, src []byte) []byte {
	if n.IsRaw() {
		return n.Value(src)
	}
	return util.UnescapePunctuations(n.Value(src))
}

// table draws a GitHub table: its header row bold, every cell's inline Markdown drawn.
func (r *mdRenderer) table(t *east.Table, width int) []string {
	var cells [][]string
	header := -1
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var parts []string
		_, isHeader := row.(*east.TableHeader)
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			if isHeader {
				parts = append(parts, r.ms.bold.Render(r.plain(c)))
			} else {
				parts = append(parts, r.inlines(c))
			}
		}
		if isHeader {
			header = len(cells)
		}
		cells = append(cells, parts)
	}
	return drawTable(cells, header, width, r.ms)
}

// drawTable draws rows of styled cells in box lines, its columns narrowed (the widest first)
// and their cells wrapped until the table fits width; row header is followed by a rule.
func drawTable(cells [][]string, header, width int, ms mdStyles) []string {
	cols := 0
	for _, r := range cells {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range cells {
		for c, v := range r {
			widths[c] = max(widths[c], lipgloss.Width(v))
		}
	}
	// Borders and padding take 3 columns a cell, plus one.
	for sum(widths)+3*cols+1 > width {
		w := 0
		for c := range widths {
			if widths[c] > widths[w] {
				w = c
			}
		}
		if widths[w] <= 3 {
			break
		}
		widths[w]--
	}
	line := func(l, m, r string) string {
		parts := make([]string, cols)
		for c := range parts {
			parts[c] = strings.Repeat("─", widths[c]+2)
		}
		return ms.rule.Render(l + strings.Join(parts, m) + r)
	}
	out := []string{line("┌", "┬", "┐")}
	for ri, r := range cells {
		wrapped := make([][]string, cols)
		height := 1
		for c := range cols {
			v := ""
			if c < len(r) {
				v = r[c]
			}
			wrapped[c] = strings.Split(lipgloss.Wrap(v, widths[c], ""), "\n")
			height = max(height, len(wrapped[c]))
		}
		for k := range height {
			var b strings.Builder
			b.WriteString(ms.rule.Render("│"))
			for c := range cols {
				v := ""
				if k < len(wrapped[c]) {
					v = wrapped[c][k]
				}
				b.WriteString(" " + v + strings.Repeat(" ", max(0, widths[c]-lipgloss.Width(v))) + " " + ms.rule.Render("│"))
			}
			out = append(out, b.String())
		}
		if ri == header {
			out = append(out, line("├", "┼", "┤"))
		}
	}
	return append(out, line("└", "┴", "┘"))
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
