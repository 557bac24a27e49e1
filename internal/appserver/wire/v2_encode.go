package wire

import (
	"encoding/json"

	"github.com/gocodex/gocodex/protocol"
)

// longAnswer is the text length from which WireParams encodes an answer itself.
const longAnswer = 64 << 10

// WireParams is what to send as the notification's params: Params itself, or, when
// item/completed or turn/completed carries an agent message of 64 KiB or more, the params
// already encoded (as protocol.Marshal would) through protocol.MarshalWithTexts. An answer
// of megabytes is then written once, into a buffer of its size, instead of into
// encoding/json's pooled buffers, which would keep its size for two garbage collections.
func (n V2Notification) WireParams() (any, error) {
	switch p := n.Params.(type) {
	case V2ItemCompleted:
		if a, ok := p.Item.(*V2AgentMessage); ok && len(a.Text) >= longAnswer {
			return encoded(protocol.MarshalWithText(a.Text, func(text string) any {
				c := *a
				c.Text = text
				p.Item = &c
				return p
			}))
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
			return encoded(protocol.MarshalWithTexts(texts, func(texts []string) any {
				items := append([]V2Item(nil), p.Turn.Items...)
				for k, i := range at {
					c := *items[i].(*V2AgentMessage)
					c.Text = texts[k]
					items[i] = &c
				}
				p.Turn.Items = items
				return p
			}))
		}
	}
	return n.Params, nil
}

func encoded(b []byte, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}
