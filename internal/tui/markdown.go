package tui

import (
	"regexp"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
)

// A small Markdown renderer for agent messages: headings, lists, quotes, rules, fenced code
// blocks with keyword highlighting, and inline bold, italics, code and links. It works line
// by line, so a message still streaming renders the same way it will once complete (an
// unclosed fence is a code block up to the end).

// mdStyles are the looks of rendered Markdown.
type mdStyles struct {
	heading, bold, italic, code, link, quote, rule lipgloss.Style
	keyword, str, comment, number                  lipgloss.Style
}

func newMDStyles() mdStyles {
	return mdStyles{
		heading: lipgloss.NewStyle().Bold(true).Underline(true),
		bold:    lipgloss.NewStyle().Bold(true),
		italic:  lipgloss.NewStyle().Italic(true),
		code:    lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		link:    lipgloss.NewStyle().Foreground(lipgloss.Cyan).Underline(true),
		quote:   lipgloss.NewStyle().Faint(true).Italic(true),
		rule:    lipgloss.NewStyle().Faint(true),
		keyword: lipgloss.NewStyle().Foreground(lipgloss.Magenta),
		str:     lipgloss.NewStyle().Foreground(lipgloss.Green),
		comment: lipgloss.NewStyle().Faint(true),
		number:  lipgloss.NewStyle().Foreground(lipgloss.Yellow),
	}
}

// mdPatterns are compiled on first use, not at start-up: most runs never draw Markdown.
type mdPatterns struct {
	heading, bullet, ordered, rule, inline, linkPart, codeToken *regexp.Regexp
	keywords                                                    map[string]map[string]bool
}

var mdRe = sync.OnceValue(func() *mdPatterns {
	return &mdPatterns{
		heading:   regexp.MustCompile(`^(#{1,6})\s+(.*)$`),
		bullet:    regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`),
		ordered:   regexp.MustCompile(`^(\s*)(\d+[.)])\s+(.*)$`),
		rule:      regexp.MustCompile(`^\s*([-*_])(\s*[-*_]){2,}\s*$`),
		inline:    regexp.MustCompile("`[^`]+`|\\*\\*[^*]+\\*\\*|__[^_]+__|\\[[^\\]]+\\]\\([^)\\s]+\\)|\\*[^*\\s][^*]*\\*"),
		linkPart:  regexp.MustCompile(`^\[([^\]]+)\]\(([^)\s]+)\)$`),
		codeToken: regexp.MustCompile(`//.*$|#.*$|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`" + `|\b\d+(?:\.\d+)?\b|\b[A-Za-z_][A-Za-z0-9_]*\b`),
		keywords: map[string]map[string]bool{
			"go":     set("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false"),
			"python": set("and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield"),
			"js":     set("async await break case catch class const continue default delete do else export extends false finally for function if import in instanceof let new null return switch this throw true try typeof undefined var void while yield"),
			"rust":   set("as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while"),
			"sh":     set("if then else elif fi for while do done case esac function in return export local"),
		},
	}
})

// renderMarkdown draws text for width columns.
func renderMarkdown(text string, width int, ms mdStyles) string {
	var out []string
	wrap := func(s string, w int) []string { return strings.Split(lipgloss.Wrap(s, max(1, w), ""), "\n") }
	re := mdRe()
	inFence, lang := false, ""
	src := strings.Split(text, "\n")
	for i := 0; i < len(src); i++ {
		line := src[i]
		trimmed := strings.TrimSpace(line)
		if !inFence && isTableRow(trimmed) {
			j := i
			for j < len(src) && isTableRow(strings.TrimSpace(src[j])) {
				j++
			}
			out = append(out, renderTable(src[i:j], width, ms)...)
			i = j - 1
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			if !inFence {
				inFence, lang = true, strings.ToLower(strings.TrimSpace(trimmed[3:]))
			} else {
				inFence = false
			}
			continue
		}
		if inFence {
			code := strings.ReplaceAll(line, "\t", "    ")
			for _, l := range wrap(code, width-2) {
				out = append(out, "  "+highlight(l, lang, ms))
			}
			continue
		}
		switch {
		case re.heading.MatchString(line):
			h := re.heading.FindStringSubmatch(line)
			st := ms.bold
			if len(h[1]) <= 2 {
				st = ms.heading
			}
			for _, l := range wrap(h[2], width) {
				out = append(out, st.Render(l))
			}
		case re.rule.MatchString(line):
			out = append(out, ms.rule.Render(strings.Repeat("─", max(1, min(width, 40)))))
		case re.bullet.MatchString(line):
			b := re.bullet.FindStringSubmatch(line)
			out = append(out, hanging(b[1]+"- ", inline(b[2], ms), width, wrap)...)
		case re.ordered.MatchString(line):
			o := re.ordered.FindStringSubmatch(line)
			out = append(out, hanging(o[1]+o[2]+" ", inline(o[3], ms), width, wrap)...)
		case strings.HasPrefix(trimmed, ">"):
			q := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
			for _, l := range wrap(q, width-2) {
				out = append(out, ms.quote.Render("▌ "+l))
			}
		default:
			out = append(out, wrap(inline(line, ms), width)...)
		}
	}
	return strings.Join(out, "\n")
}

// hanging wraps a list item so its continuation lines align after the marker.
func hanging(marker, body string, width int, wrap func(string, int) []string) []string {
	pad := strings.Repeat(" ", lipgloss.Width(marker))
	lines := wrap(body, width-len(pad))
	for i := range lines {
		if i == 0 {
			lines[i] = marker + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return lines
}

// inline styles the spans of one line.
func inline(s string, ms mdStyles) string {
	return mdRe().inline.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case strings.HasPrefix(m, "`"):
			return ms.code.Render(m[1 : len(m)-1])
		case strings.HasPrefix(m, "**") || strings.HasPrefix(m, "__"):
			return ms.bold.Render(m[2 : len(m)-2])
		case strings.HasPrefix(m, "["):
			p := mdRe().linkPart.FindStringSubmatch(m)
			if p[1] == p[2] {
				return ms.link.Render(p[2])
			}
			return p[1] + " (" + ms.link.Render(p[2]) + ")"
		default:
			return ms.italic.Render(m[1 : len(m)-1])
		}
	})
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// langAlias maps a fence's language name to the keyword table's.
func langAlias(lang string) string {
	switch lang {
	case "golang":
		return "go"
	case "py":
		return "python"
	case "javascript", "ts", "typescript", "tsx", "jsx":
		return "js"
	case "rs":
		return "rust"
	case "bash", "shell", "zsh", "console":
		return "sh"
	}
	return lang
}

// highlight colours keywords, strings, numbers and comments of a code line; unknown
// languages are drawn in the code colour.
func highlight(line, lang string, ms mdStyles) string {
	lang = langAlias(lang)
	kw, ok := mdRe().keywords[lang]
	if !ok {
		return ms.code.Render(line)
	}
	return mdRe().codeToken.ReplaceAllStringFunc(line, func(t string) string {
		switch {
		case strings.HasPrefix(t, "//") && lang != "sh" && lang != "python":
			return ms.comment.Render(t)
		case strings.HasPrefix(t, "#") && (lang == "sh" || lang == "python"):
			return ms.comment.Render(t)
		case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#"):
			return t
		case t[0] == '"' || t[0] == '\'' || t[0] == '`':
			return ms.str.Render(t)
		case t[0] >= '0' && t[0] <= '9':
			return ms.number.Render(t)
		case kw[t]:
			return ms.keyword.Render(t)
		}
		return t
	})
}

// isTableRow reports a line of a pipe table.
func isTableRow(trimmed string) bool {
	return len(trimmed) > 1 && strings.HasPrefix(trimmed, "|")
}

// renderTable draws a pipe table in box lines, its columns narrowed (the widest first) and
// their cells wrapped until the table fits width.
func renderTable(rows []string, width int, ms mdStyles) []string {
	var cells [][]string
	header := -1
	for _, r := range rows {
		r = strings.Trim(strings.TrimSpace(r), "|")
		parts := strings.Split(r, "|")
		sep := true
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
			if strings.Trim(parts[i], ":-") != "" || parts[i] == "" {
				sep = false
			}
		}
		if sep && len(cells) == 1 {
			header = 0
			continue
		}
		cells = append(cells, parts)
	}
	cols := 0
	for _, r := range cells {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range cells {
		for c, v := range r {
			widths[c] = max(widths[c], lipgloss.Width(inline(v, ms)))
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
				v = inline(r[c], ms)
				if ri == header {
					v = ms.bold.Render(r[c])
				}
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
