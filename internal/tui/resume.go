package tui

import (
	"encoding/json"
	"strings"
)

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
