package tui

import (
	"encoding/json"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// replay shows a resumed or forked thread's earlier conversation, which the engine hands
// over in session_configured: what the person typed, the answers, commands and patches,
// and the last token usage, so the transcript continues where the thread left off.
// Messages come as events (user_message, agent_message) in older rollouts and as completed
// items in the form Codex 0.169 writes; a message recorded both ways is shown once.
func (m *Model) replay(initial []protocol.EventMsgJSON) {
	for _, e := range initial {
		switch msg := e.Msg.(type) {
		case protocol.UserMessageEvent:
			m.replayMessage(cellUser, msg.Message)
		case protocol.AgentMessageEvent:
			m.replayMessage(cellAgent, msg.Message)
		case protocol.ItemCompletedEvent:
			if kind, text, ok := messageItem(msg.Item); ok {
				m.replayMessage(kind, text)
			}
		case protocol.TokenCountEvent:
			if msg.Info != nil {
				m.usage = msg.Info
			}
		default:
			m.tr.apply(msg)
		}
	}
	m.tr.closeStreams()
	m.refresh()
}

// replayMessage adds a finished message cell unless the last cell already is that message.
func (m *Model) replayMessage(kind cellKind, text string) {
	m.tr.closeStreams()
	if n := len(m.tr.cells); n > 0 && m.tr.cells[n-1].kind == kind && m.tr.cells[n-1].body == text {
		return
	}
	m.tr.add(cell{kind: kind, body: text})
}

// messageItem reads a completed UserMessage or AgentMessage item: its cell kind and text.
func messageItem(raw json.RawMessage) (cellKind, string, bool) {
	var it struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return 0, "", false
	}
	var kind cellKind
	switch it.Type {
	case "UserMessage":
		kind = cellUser
	case "AgentMessage":
		kind = cellAgent
	default:
		return 0, "", false
	}
	var parts []string
	for _, c := range it.Content {
		if strings.EqualFold(c.Type, "text") {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 {
		return 0, "", false
	}
	return kind, strings.Join(parts, "\n"), true
}
