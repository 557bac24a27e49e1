package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// imageExts are the file types a pasted path is attached for, as Codex's composer does.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// attachPastedImage attaches a paste that is the path of an image file (a drag and drop
// from a file manager pastes the path): the composer gets Codex's "[Image #N] " placeholder
// and the file goes with the message. It reports whether the paste was such a path.
func (m *Model) attachPastedImage(content string) bool {
	path := pastedPath(content)
	if path == "" || !imageExts[strings.ToLower(filepath.Ext(path))] {
		return false
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(m.header.Cwd, abs)
	}
	if info, err := os.Stat(abs); err != nil || !info.Mode().IsRegular() {
		return false
	}
	m.attached = append(m.attached, path)
	m.input.InsertString(imagePlaceholder(len(m.attached)) + " ")
	return true
}

func imagePlaceholder(n int) string { return fmt.Sprintf("[Image #%d]", n) }

// pastedPath is the single path a paste names, unquoted ('…', "…", file://, "\ "), or "".
func pastedPath(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\n\r") {
		return ""
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	} else {
		s = strings.ReplaceAll(s, `\ `, " ")
	}
	return strings.TrimPrefix(s, "file://")
}

// messageItems are the input items of a message: the attached images whose placeholder is
// still in the text (before the text, as Codex sends them), then the text. The
// attachments are used up.
func (m *Model) messageItems(shown, full string) []protocol.InputItem {
	var paths []string
	for i, p := range m.attached {
		if strings.Contains(shown, imagePlaceholder(i+1)) {
			paths = append(paths, p)
		}
	}
	m.attached = nil
	items := protocol.LocalImageInputs(paths)
	if full != "" || len(items) == 0 {
		items = append(items, protocol.TextInput(full))
	}
	return items
}

// sendWithImages sends the first message with the -i/--image files: as Codex does, the
// files alone when there is no prompt; the transcript shows their placeholders.
func (m *Model) sendWithImages(prompt string, paths []string) {
	var phs []string
	for _, p := range paths {
		m.attached = append(m.attached, p)
		phs = append(phs, imagePlaceholder(len(m.attached)))
	}
	shown := strings.Join(phs, " ")
	if prompt != "" {
		shown += "\n" + prompt
	}
	m.send(shown, m.expandPastes(prompt))
}
