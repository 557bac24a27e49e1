package tui

import (
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

func TestHookCells(t *testing.T) {
	h := newHarness(t, "")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.event(protocol.TurnStartedEvent{TurnID: "t1"})
	turn := "t1"
	checking := "checking the command"
	deny := protocol.HookRunSummary{ID: "pre-tool-use:0:/h.json", EventName: "pre_tool_use", StatusMessage: &checking, Status: protocol.HookRunning}
	slow := protocol.HookRunSummary{ID: "user-prompt-submit:1:/h.json", EventName: "user_prompt_submit", Status: protocol.HookRunning}
	ctx := protocol.HookRunSummary{ID: "session-start:2:/h.json", EventName: "session_start", Status: protocol.HookRunning}
	for _, r := range []protocol.HookRunSummary{ctx, slow, deny} {
		h.event(protocol.HookStartedEvent{TurnID: &turn, Run: r})
	}
	ctx.Status, ctx.Entries = protocol.HookCompleted, []protocol.HookOutputEntry{{Kind: "context", Text: "the build is red"}}
	slow.Status, slow.Entries = protocol.HookFailed, []protocol.HookOutputEntry{{Kind: "error", Text: "hook timed out after 1s"}}
	for _, r := range []protocol.HookRunSummary{ctx, slow} {
		h.event(protocol.HookCompletedEvent{TurnID: &turn, Run: r})
	}
	// deny is still running: its cell stays open.
	h.golden("hook_cells_running")
	deny.Status, deny.Entries = protocol.HookBlocked, []protocol.HookOutputEntry{{Kind: "feedback", Text: "no touching"}}
	h.event(protocol.HookCompletedEvent{TurnID: &turn, Run: deny})
	h.golden("hook_cells")
}
