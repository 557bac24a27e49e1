package tui

import (
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// A patch whose output carries the language servers' diagnostics shows their count; a clean
// one shows none.
func TestPatchCellCountsDiagnostics(t *testing.T) {
	h := newHarness(t, "")
	changes := map[string]protocol.FileChange{"main.go": {Kind: protocol.FileUpdate, UnifiedDiff: "@@\n-x\n+y\n"}}
	h.event(protocol.PatchApplyBeginEvent{CallID: "p1", TurnID: "t1", AutoApproved: true, Changes: changes})
	h.event(protocol.PatchApplyEndEvent{CallID: "p1", TurnID: "t1", Success: true, Changes: changes,
		Stdout: "Success. Updated the following files:\nM main.go\n\nLanguage server diagnostics: 2 errors, 1 warning\nmain.go:4:2 error undefined: x\n"})
	h.event(protocol.PatchApplyBeginEvent{CallID: "p2", TurnID: "t1", AutoApproved: true, Changes: changes})
	h.event(protocol.PatchApplyEndEvent{CallID: "p2", TurnID: "t1", Success: true, Changes: changes,
		Stdout: "Success. Updated the following files:\nM main.go\n"})
	screen := h.screen()
	if !strings.Contains(screen, "Applied patch (2 errors, 1 warning)") || strings.Count(screen, "Applied patch") != 2 || strings.Count(screen, "(2 errors") != 1 {
		t.Errorf("screen:\n%s", screen)
	}
}
