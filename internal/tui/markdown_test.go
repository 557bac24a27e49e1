package tui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gocodex/gocodex/protocol"
)

const markdownAnswer = "## Fix\n\nThe **parser** skipped the last token; see `lex.go` and [the spec](https://example.com/spec).\n\n" +
	"1. Read the input\n2. Emit tokens until the end of a rather long line that has to wrap around the terminal's width\n\n" +
	"- first point\n  - nested point\n\n> a quoted remark\n\n---\n\n```go\n// next returns the token\nfunc next(s string) int {\n\treturn len(s) + 1\n}\n```\n"

func TestMarkdownAnswer(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 40)
		h.event(protocol.AgentMessageEvent{Message: markdownAnswer})
		h.golden("markdown_" + itoa(w))
	}
	ms := newMDStyles()
	out := renderMarkdown(markdownAnswer, 80, ms)
	plain := ansi.Strip(out)
	for _, want := range []string{"Fix", "The parser skipped", "lex.go", "the spec (https://example.com/spec)", "1. Read the input", "- first point", "  - nested point", "▌ a quoted remark", "  func next(s string) int {", "      return len(s) + 1"} {
		if !strings.Contains(plain, want) && !strings.Contains(strings.Join(strings.Fields(plain), " "), want) {
			t.Errorf("missing %q in:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "```") || strings.Contains(plain, "**") || strings.Contains(plain, "## ") {
		t.Errorf("markup left in:\n%s", plain)
	}
	// Keywords are coloured in the theme in a Go block, not in a plain text block.
	if !strings.Contains(out, tokenStyle(ms.theme, chroma.KeywordDeclaration).Render("func")) {
		t.Error("the Go keyword is not highlighted")
	}
	if strings.Contains(renderMarkdown("```text\nfunc x\n```", 80, ms), tokenStyle(ms.theme, chroma.KeywordDeclaration).Render("func")) {
		t.Error("a text block was highlighted as Go")
	}
	// An answer still streaming, its fence not closed yet, is already a code block (set off
	// from the paragraph it interrupts by a blank line, as every block is).
	if got := ansi.Strip(renderMarkdown("look:\n```sh\necho hi", 80, ms)); got != "look:\n\n  echo hi" {
		t.Errorf("open fence: %q", got)
	}
}

// A pipe table is drawn in box lines and wrapped to fit the width.
func TestMarkdownTable(t *testing.T) {
	table := "| Flag | Meaning |\n|---|:--|\n| `-m` | the model to use for this session and the ones it starts |\n| `-s` | sandbox |\n"
	ms := newMDStyles()
	for _, w := range []int{80, 40} {
		out := ansi.Strip(renderMarkdown(table, w, ms))
		lines := strings.Split(out, "\n")
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line of %d columns: %q", w, ansi.StringWidth(l), l)
			}
		}
		if !strings.HasPrefix(lines[0], "┌") || !strings.Contains(out, "│ Flag │ Meaning") || !strings.Contains(out, "├") {
			t.Errorf("width %d:\n%s", w, out)
		}
		if strings.Contains(out, "---") {
			t.Errorf("the separator row was drawn:\n%s", out)
		}
	}
}

// The parser reads what line patterns could not: emphasis markers inside code spans stay
// text, a link's label may hold brackets' neighbours, a loose list keeps its numbering, and
// languages beyond a fixed five are highlighted.
func TestMarkdownParsedNotPatterned(t *testing.T) {
	ms := newMDStyles()
	plain := func(md string) string { return ansi.Strip(renderMarkdown(md, 80, ms)) }
	if got := plain("use `a*b*c` and **bold `x`**"); got != "use a*b*c and bold x" {
		t.Errorf("code span and nested span: %q", got)
	}
	if got := plain("3. three\n4. four"); got != "3. three\n4. four" {
		t.Errorf("ordered list from 3: %q", got)
	}
	if got := plain("- a\n\n  more of a\n- b"); got != "- a\n\n  more of a\n\n- b" {
		t.Errorf("loose list: %q", got)
	}
	if got := plain("~~gone~~ <https://x.test/y>"); got != "gone https://x.test/y" {
		t.Errorf("strikethrough and autolink: %q", got)
	}
	for _, lang := range []string{"rust", "ts", "kotlin", "sql", "yaml"} {
		out := renderMarkdown("```"+lang+"\nlet x = 1\n```", 80, ms)
		if out == "  "+ms.code.Render("let x = 1") {
			t.Errorf("%s was not highlighted: %q", lang, out)
		}
	}
	// Tables come from the parser too: a cell's pipe escaped stays in the cell.
	out := plain("| a | b |\n|---|---|\n| x \\| y | z |\n")
	if !strings.Contains(out, "│ x | y │ z │") {
		t.Errorf("table:\n%s", out)
	}
}
