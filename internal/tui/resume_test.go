package tui

import (
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
