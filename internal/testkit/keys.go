package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ObjectKeys lists the top-level keys of a JSON object in the order they appear, which is
// what wire-shape comparisons with Codex check (field order matters to byte-level goldens).
func ObjectKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %.80s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
