package tui

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
)

// defaultTheme is the syntax theme when config.toml names none (`[tui] theme`), Codex's
// default on a dark terminal.
const defaultTheme = "catppuccin-mocha"

// themeNames are chroma's styles, sorted: what /theme offers.
func themeNames() []string { return styleNames() }

// knownTheme reports whether chroma has a style of that name.
func knownTheme(name string) bool {
	_, ok := syntaxStyles()[name]
	return ok
}

// themeCache keeps each theme's lipgloss look of a token type, built on first use.
var themeCache sync.Map // theme + "\x00" + token type -> lipgloss.Style

func tokenStyle(theme string, tt chroma.TokenType) lipgloss.Style {
	key := theme + "\x00" + tt.String()
	if st, ok := themeCache.Load(key); ok {
		return st.(lipgloss.Style)
	}
	e := styleNamed(theme).Get(tt)
	st := lipgloss.NewStyle()
	if e.Colour.IsSet() {
		st = st.Foreground(lipgloss.Color(e.Colour.String()))
	}
	// The terminal's own background stays: a theme's background would paint blocks.
	st = st.Bold(e.Bold == chroma.Yes).Italic(e.Italic == chroma.Yes).Underline(e.Underline == chroma.Yes)
	themeCache.Store(key, st)
	return st
}

// highlightCode colours code in the theme of ms when chroma knows lang (a fence's language
// name or file extension); other code is drawn in the code colour. Lines stay lines.
func highlightCode(code, lang string, ms mdStyles) string {
	lexer := lexerFor(lang)
	if lexer == nil {
		return codeColour(code, ms)
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return codeColour(code, ms)
	}
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		st := tokenStyle(ms.theme, tok.Type)
		// A style spans one line at most, so a wrapped or split line keeps its colours.
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if part != "" {
				b.WriteString(st.Render(part))
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func codeColour(code string, ms mdStyles) string {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = ms.code.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// lexerFor finds chroma's lexer for a fence's language: by name or alias ("go", "py"), then
// by file name ("main.rs"). No language means no guess.
func lexerFor(lang string) chroma.Lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "" || lang == "text" || lang == "plain" || lang == "plaintext" {
		return nil
	}
	return lexerNamed(lang)
}
