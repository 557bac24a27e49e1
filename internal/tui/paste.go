package tui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// largePasteChars is the size from which a paste is shown as a placeholder, as Codex does:
// the composer stays responsive with megabytes pasted, and the whole text is what is sent.
const largePasteChars = 1000

// pasted inserts a paste into the composer: control bytes other than newlines and tabs are
// dropped (a binary paste cannot confuse the terminal), and a large paste becomes a
// placeholder that submit expands.
func (m *Model) pasted(content string) {
	content = cleanPaste(content)
	if m.attachPastedImage(content) {
		return
	}
	n := utf8.RuneCountInString(content)
	if n < largePasteChars {
		m.input.InsertString(content)
		return
	}
	ph := fmt.Sprintf("[Pasted Content %d chars]", n)
	for i := 2; m.pastes[ph] != ""; i++ {
		ph = fmt.Sprintf("[Pasted Content %d chars #%d]", n, i)
	}
	if m.pastes == nil {
		m.pastes = map[string]string{}
	}
	m.pastes[ph] = content
	m.input.InsertString(ph)
}

// expandPastes puts the pasted text back in place of the placeholders in text.
func (m *Model) expandPastes(text string) string {
	for ph, content := range m.pastes {
		if strings.Contains(text, ph) {
			text = strings.ReplaceAll(text, ph, content)
			delete(m.pastes, ph)
		}
	}
	return text
}

func cleanPaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}
