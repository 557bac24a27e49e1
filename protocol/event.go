package protocol

import (
	"encoding/json"
	"fmt"
)

// Event is one entry of the event queue: a message from the engine and the id of the
// submission it answers.
type Event struct {
	ID  string   `json:"id"`
	Msg EventMsg `json:"msg"`
}

// UnmarshalJSON decodes the message through DecodeEventMsg.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w struct {
		ID  string          `json:"id"`
		Msg json.RawMessage `json:"msg"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if len(w.Msg) == 0 {
		return fmt.Errorf("event: missing field `msg`")
	}
	msg, err := DecodeEventMsg(w.Msg)
	if err != nil {
		return err
	}
	*e = Event{ID: w.ID, Msg: msg}
	return nil
}

// EventMsg is a message from the engine. The concrete types are the *Event structs of this
// package; each marshals itself with "type" first.
type EventMsg interface {
	EventType() string
	isEventMsg()
}

// MarshalEventMsg encodes m with its "type" tag.
func MarshalEventMsg(m EventMsg) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("marshal event: nil message")
	}
	return Marshal(m)
}
