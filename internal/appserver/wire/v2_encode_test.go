package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// A notification carrying a long answer is sent encoded exactly as its params would be.
func TestWireParamsOfLongAnswers(t *testing.T) {
	long := strings.Repeat("a long \"answer\" <b>\n", 10_000)
	phase := "final_answer"
	answer := &V2AgentMessage{Type: "agentMessage", ID: "msg_1", Text: long, Phase: &phase}
	short := &V2AgentMessage{Type: "agentMessage", ID: "msg_0", Text: "short"}
	user := &V2UserMessage{Type: "userMessage", ID: "u", Content: []V2UserContent{}}
	for name, n := range map[string]V2Notification{
		"item/completed": {"item/completed", V2ItemCompleted{Item: answer, ThreadID: "t", TurnID: "u", CompletedAtMs: 7}},
		"turn/completed": {"turn/completed", V2TurnNotification{ThreadID: "t", Turn: V2Turn{ID: "u", Items: []V2Item{user, short, answer}, Status: "completed"}}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := protocol.Marshal(n.Params)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := n.WireParams().(interface{ AppendParams([]byte) ([]byte, error) })
			if !ok {
				t.Fatalf("WireParams = %T, want params that append themselves", n.WireParams())
			}
			raw, err := got.AppendParams([]byte("head:"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, append([]byte("head:"), want...)) {
				t.Errorf("WireParams appended %d bytes, want the encoded params (%d bytes)", len(raw)-5, len(want))
			}
			if viaJSON, err := protocol.Marshal(got); err != nil || !bytes.Equal(viaJSON, want) {
				t.Errorf("WireParams through encoding/json: %v", err)
			}
			if answer.Text != long || short.Text != "short" {
				t.Error("the items were changed")
			}
		})
	}
	small := V2Notification{"item/completed", V2ItemCompleted{Item: short}}
	if got := small.WireParams(); !isItemCompleted(got) {
		t.Errorf("a short answer's params = %T, want them as they are", got)
	}
}

func isItemCompleted(v any) bool { _, ok := v.(V2ItemCompleted); return ok }
