package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// /vim starts in Normal mode, where letters move and edit; i, a, A, I and o type again, Esc
// goes back to Normal; /vim again turns it off.
func TestVimMode(t *testing.T) {
	h := newHarness(t, "")
	h.command("/vim")
	if !h.m.vim.on || !h.m.vim.normal || !strings.Contains(h.screen(), "Vim: Normal") {
		t.Fatalf("after /vim:\n%s", h.screen())
	}
	h.typeText("ihello world")
	if got := h.m.input.Value(); got != "hello world" {
		t.Fatalf("i then typing: %q", got)
	}
	h.key(keyEsc)
	h.typeText("0xA!")
	if got := h.m.input.Value(); got != "ello world!" {
		t.Errorf("0 x A!: %q", got)
	}
	h.key(keyEsc)
	h.typeText("bD")
	if got := h.m.input.Value(); got != "ello " {
		t.Errorf("b D: %q", got)
	}
	h.typeText("qz") // printable keys do not type in Normal mode
	if got := h.m.input.Value(); got != "ello " {
		t.Errorf("Normal mode typed: %q", got)
	}
	h.typeText("dd")
	if got := h.m.input.Value(); got != "" {
		t.Errorf("dd: %q", got)
	}
	h.typeText("i/vim")
	h.runCmd(h.key(keyEnter))
	if h.m.vim.on || strings.Contains(h.screen(), "Vim:") {
		t.Errorf("/vim did not turn it off:\n%s", h.screen())
	}
	h.typeText("plain")
	if got := h.m.input.Value(); got != "plain" {
		t.Errorf("typing after Vim mode: %q", got)
	}
}

// BenchmarkKeystrokeLargeTranscript measures one typed key to its frame on a 10,000-line
// transcript, with Vim mode off and on (Insert mode types; Normal mode moves).
//
//	go test ./internal/tui -run '^$' -bench Keystroke -benchtime 2000x
func BenchmarkKeystrokeLargeTranscript(b *testing.B) {
	for _, mode := range []string{"plain", "vim-insert", "vim-normal"} {
		b.Run(mode, func(b *testing.B) {
			m := NewModel(newFakeEngine(), Header{Model: "gpt-test", Cwd: "/work/project"}, "")
			m.scrollback = func(string) {}
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			para := strings.TrimSuffix(strings.Repeat("a line of the earlier conversation, long enough to matter\n", 9), "\n")
			for i := range 1001 {
				m.tr.add(cell{kind: cellAgent, body: fmt.Sprintf("%d ", i) + para})
			}
			m.refresh()
			m.View()
			m.vim = vimMode{on: mode != "plain", normal: mode == "vim-normal"}
			keys := []rune("hl")
			if mode != "vim-normal" {
				keys = []rune("ab")
			}
			b.ResetTimer()
			for i := range b.N {
				r := keys[i%len(keys)]
				m.Update(tea.KeyPressMsg(tea.Key{Code: r, Text: string(r)}))
				m.View()
				if i%200 == 199 && mode != "vim-normal" {
					m.input.Reset()
				}
			}
		})
	}
}
