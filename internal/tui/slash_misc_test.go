package tui

import (
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// /warnings gathers the warnings shown so far; /raw shows an answer's Markdown as written.
func TestWarningsAndRaw(t *testing.T) {
	h := newHarness(t, "")
	h.event(protocol.WarningEvent{Message: "the sandbox could not be applied"})
	h.command("/warnings")
	if scr := h.screen(); !strings.Contains(scr, "Warnings") || strings.Count(scr, "the sandbox could not be applied") != 2 {
		t.Errorf("/warnings:\n%s", scr)
	}
	h.event(protocol.AgentMessageEvent{Message: "# Title\n\n**bold**"})
	h.command("/raw")
	if scr := h.screen(); !strings.Contains(scr, "# Title") || !strings.Contains(scr, "**bold**") {
		t.Errorf("raw:\n%s", scr)
	}
	h.command("/raw")
	if scr := h.screen(); strings.Contains(scr, "**bold**") {
		t.Errorf("raw off:\n%s", scr)
	}
}
