package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// A resumed thread's session_configured carries its conversation: it is on screen before
// anything new happens, and the last token usage is the UI's.
func TestResumedConversationIsReplayed(t *testing.T) {
	h := newHarness(t, "")
	usage := &protocol.TokenUsageInfo{TotalTokenUsage: protocol.TokenUsage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}
	h.event(protocol.SessionConfiguredEvent{Model: "gpt-5.5", InitialMessages: []protocol.EventMsgJSON{
		{Msg: protocol.UserMessageEvent{Message: "EARLIERQUESTION"}},
		{Msg: protocol.AgentMessageEvent{Message: "EARLIERANSWER"}},
		{Msg: protocol.TokenCountEvent{Info: usage}},
		{Msg: protocol.UserMessageEvent{Message: "SECONDQUESTION"}},
	}})
	screen := h.screen()
	q, a, q2 := strings.Index(screen, "EARLIERQUESTION"), strings.Index(screen, "EARLIERANSWER"), strings.Index(screen, "SECONDQUESTION")
	if q < 0 || a < q || q2 < a {
		t.Errorf("the earlier conversation is not on screen in order:\n%s", screen)
	}
	if h.m.usage != usage {
		t.Errorf("usage = %v, want the recorded one", h.m.usage)
	}
}

// Codex 0.169 records messages as completed items; a message recorded both as an event and
// as an item is shown once.
func TestResumedCodexItemsAreReplayedOnce(t *testing.T) {
	h := newHarness(t, "")
	item := func(s string) json.RawMessage { return json.RawMessage(s) }
	h.event(protocol.SessionConfiguredEvent{Model: "gpt-5.5", InitialMessages: []protocol.EventMsgJSON{
		{Msg: protocol.ItemCompletedEvent{Item: item(`{"type":"UserMessage","id":"u1","content":[{"type":"text","text":"ITEMQUESTION","text_elements":[]}]}`)}},
		{Msg: protocol.ItemCompletedEvent{Item: item(`{"type":"AgentMessage","id":"m1","content":[{"type":"Text","text":"ITEMANSWER"}]}`)}},
		{Msg: protocol.AgentMessageEvent{Message: "ITEMANSWER"}},
		{Msg: protocol.ItemCompletedEvent{Item: item(`{"type":"Plan","id":"p1","text":"a plan"}`)}},
	}})
	screen := h.screen()
	if strings.Count(screen, "ITEMQUESTION") != 1 || strings.Count(screen, "ITEMANSWER") != 1 {
		t.Errorf("want each message once:\n%s", screen)
	}
}
