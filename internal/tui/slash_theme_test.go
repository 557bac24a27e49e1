package tui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// /theme lists chroma's styles, previews the one under the cursor on the transcript's code,
// keeps it on Enter and saves [tui] theme; Esc goes back to the theme before.
func TestThemePicker(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, "")
		h.resize(w, 32)
		h.command("/theme")
		if h.m.picker == nil {
			t.Fatal("/theme opened no picker")
		}
		h.golden("theme_picker_" + itoa(w))
	}

	h := newHarness(t, "")
	var saved []string
	h.m.settings.save = func(path []string, value any) error {
		saved = append(saved, strings.Join(path, ".")+"="+value.(string))
		return nil
	}
	h.event(protocol.AgentMessageEvent{Message: "```go\nfunc f() {}\n```"})
	keyword := func(theme string) string { return tokenStyle(theme, chroma.KeywordDeclaration).Render("func") }
	h.command("/theme")
	h.key(tea.Key{Code: tea.KeyDown})
	previewed := h.m.st.md.theme
	if previewed == defaultTheme || !strings.Contains(h.m.tr.render(80, h.m.st), keyword(previewed)) {
		t.Fatalf("moving did not preview the next theme on the transcript (theme %q)", previewed)
	}
	h.key(keyEsc)
	if h.m.st.md.theme != defaultTheme || len(saved) != 0 {
		t.Fatalf("Esc left theme %q, saved %v", h.m.st.md.theme, saved)
	}
	h.command("/theme")
	h.typeText("dracula")
	h.runCmd(h.key(keyEnter))
	if h.m.st.md.theme != "dracula" || strings.Join(saved, ",") != "theme=dracula" {
		t.Fatalf("theme %q, saved %v", h.m.st.md.theme, saved)
	}
	h.command("/theme no-such-theme")
	if !strings.Contains(h.screen(), "Unknown theme no-such-theme") || h.m.st.md.theme != "dracula" {
		t.Errorf("an unknown theme:\n%s", h.screen())
	}
}
