package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// /agents lists the sub-agents; choosing one shows its transcript, choosing the main
// thread shows the main one again, and the main thread's events keep arriving meanwhile.
func TestAgentsPickerSwitchesTranscripts(t *testing.T) {
	h := newHarness(t, "")
	h.m.threadID = "main-thread"
	h.command("/agents")
	if scr := h.screen(); !strings.Contains(scr, "Main [default] (current)  main-thread") {
		t.Fatalf("/agents without sub-agents:\n%s", scr)
	}
	h.key(keyEsc)
	item := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	started := items.SubAgentActivityCore{Type: items.CoreSubAgentActivity, ID: "s1", Kind: "started", AgentThreadID: "child-1", AgentPath: "/root/worker"}
	h.event(protocol.ItemStartedEvent{Item: item(started)})
	h.event(protocol.ItemCompletedEvent{Item: item(started)})
	h.event(protocol.AgentMessageEvent{Message: "main says hello"})
	child := func(msg protocol.EventMsg) {
		h.send(subagentMsg{childID: "child-1", parentID: "main-thread", ev: protocol.Event{ID: "c", Msg: msg}})
	}
	child(protocol.AgentMessageEvent{Message: "child-result: probe"})
	// A child of a thread this UI does not show is ignored.
	h.send(subagentMsg{childID: "stray", parentID: "other", ev: protocol.Event{Msg: protocol.AgentMessageEvent{Message: "stray"}}})
	if strings.Contains(h.screen(), "child-result") {
		t.Fatalf("the child's answer is in the main transcript:\n%s", h.screen())
	}
	for _, w := range []int{80, 120} {
		h.resize(w, 32)
		h.command("/agents")
		h.golden("agents_picker_" + itoa(w))
		h.key(keyEsc)
	}
	h.command("/subagents")
	h.key(tea.Key{Code: tea.KeyDown})
	h.key(keyEnter)
	scr := h.screen()
	if !strings.Contains(scr, "child-result: probe") || !strings.Contains(scr, "Sub-agent /root/worker (thread child-1)") || strings.Contains(scr, "main says hello") {
		t.Fatalf("after choosing the child:\n%s", scr)
	}
	h.event(protocol.AgentMessageEvent{Message: "main goes on"})
	child(protocol.AgentMessageEvent{Message: "child goes on"})
	h.typeText("hello child")
	h.key(keyEnter)
	if ops := h.eng.takeOps(); len(ops) != 0 {
		t.Errorf("a message typed while the child is shown was submitted: %v", ops)
	}
	if scr := h.screen(); !strings.Contains(scr, "child goes on") || strings.Contains(scr, "main goes on") || !strings.Contains(scr, "takes no messages from here") {
		t.Fatalf("while the child is shown:\n%s", scr)
	}
	h.command("/agents")
	h.key(tea.Key{Code: tea.KeyUp}) // the child shown is selected; the main thread is first
	h.key(keyEnter)
	scr = h.screen()
	if !strings.Contains(scr, "main says hello") || !strings.Contains(scr, "main goes on") || strings.Contains(scr, "child-result") {
		t.Fatalf("back on the main thread:\n%s", scr)
	}
	if got := h.m.agents.find("stray"); got != nil {
		t.Errorf("a stranger's child was kept")
	}
}
