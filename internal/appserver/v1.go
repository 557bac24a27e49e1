package appserver

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

func (r *threads) registerV1(s *Server) {}

// sendV1Event sends an engine event to a v1 listener as codex/event/<type>.
func sendV1Event(c *Conn, conversationID string, ev protocol.Event) {
	msg, err := protocol.MarshalEventMsg(ev.Msg)
	if err != nil {
		return
	}
	typ := ev.Msg.EventType()
	_ = c.Notify(c.Context(), "codex/event/"+typ, v1EventParams{ID: ev.ID, Msg: msg, ConversationID: conversationID})
}

// v1EventParams is a codex/event notification's params: the event and the conversation.
type v1EventParams struct {
	ID             string          `json:"id"`
	Msg            json.RawMessage `json:"msg"`
	ConversationID string          `json:"conversationId"`
}
