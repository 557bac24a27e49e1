package wire

import (
	"github.com/gocodex/gocodex/protocol"
)

// longAnswer is the text length from which WireParams encodes an answer itself.
const longAnswer = 64 << 10

// WireParams is what to send as the notification's params: Params itself, or, when
// item/completed or turn/completed carries an agent message of 64 KiB or more, params that
// encode themselves (as protocol.Marshal would) through protocol.AppendWithTexts, straight
// into the frame (jsonrpc.ParamsAppender). An answer of megabytes is then written once,
// instead of into encoding/json's pooled buffers, which would keep its size for two garbage
// collections, and copied again into the frame.
func (n V2Notification) WireParams() any {
	switch p := n.Params.(type) {
	case V2ItemCompleted:
		if a, ok := p.Item.(*V2AgentMessage); ok && len(a.Text) >= longAnswer {
			return textParams{[]string{a.Text}, func(texts []string) any {
				c := *a
				c.Text = texts[0]
				p.Item = &c
				return p
			}}
		}
	case V2TurnNotification:
		var texts []string
		var at []int
		long := false
		for i, it := range p.Turn.Items {
			if a, ok := it.(*V2AgentMessage); ok {
				texts, at = append(texts, a.Text), append(at, i)
				long = long || len(a.Text) >= longAnswer
			}
		}
		if long {
			return textParams{texts, func(texts []string) any {
				items := append([]V2Item(nil), p.Turn.Items...)
				for k, i := range at {
					c := *items[i].(*V2AgentMessage)
					c.Text = texts[k]
					items[i] = &c
				}
				p.Turn.Items = items
				return p
			}}
		}
	}
	return n.Params
}

// textParams are params carrying long texts, encoded by protocol.AppendWithTexts.
type textParams struct {
	texts []string
	build func(texts []string) any
}

// AppendParams appends the params' JSON to dst (jsonrpc.ParamsAppender).
func (p textParams) AppendParams(dst []byte) ([]byte, error) {
	return protocol.AppendWithTexts(dst, p.texts, p.build)
}

// MarshalJSON encodes the params (for a writer that is no jsonrpc.Conn).
func (p textParams) MarshalJSON() ([]byte, error) { return p.AppendParams(nil) }
