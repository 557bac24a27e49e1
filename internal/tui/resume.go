package tui

import "github.com/gocodex/gocodex/protocol"

// replay shows a resumed or forked thread's earlier conversation, which the engine hands
// over in session_configured: what the person typed, the answers, commands and patches,
// and the last token usage, so the transcript continues where the thread left off.
func (m *Model) replay(initial []protocol.EventMsgJSON) {
	for _, e := range initial {
		switch msg := e.Msg.(type) {
		case protocol.UserMessageEvent:
			m.tr.closeStreams()
			m.tr.add(cell{kind: cellUser, body: msg.Message})
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
