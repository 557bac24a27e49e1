package protocol

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v the way Codex's serde_json does: like json.Marshal, but without
// escaping <, > and & (serde never does; Go does by default, which would turn
// "<environment_context>" into "\u003cenvironment_context\u003e").
//
// Use it (or a json.Encoder with SetEscapeHTML(false)) for every value that leaves the
// process: json.Marshal re-escapes the output of MarshalJSON methods, so calling it on an
// Event would undo the care taken here.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode appends a newline
}
