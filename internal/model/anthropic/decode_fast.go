package anthropic

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The fast path reads the one event that makes up almost all of a stream, a
// content_block_delta as the API writes it (compact, fields in this order), without
// encoding/json's reflection. Anything else falls back to json.Unmarshal.
var (
	deltaPrefix    = []byte(`{"type":"content_block_delta","index":`)
	deltaTypeStart = []byte(`,"delta":{"type":"`)
)

// fastDelta is a content_block_delta read by the fast path.
type fastDelta struct {
	index int
	typ   string // text_delta, thinking_delta, input_json_delta
	value string
}

// deltaFields maps each fast-path delta type to the field that follows its type.
var deltaFields = []struct {
	typ   string
	field []byte
}{
	{"text_delta", []byte(`text_delta","text":"`)},
	{"input_json_delta", []byte(`input_json_delta","partial_json":"`)},
	{"thinking_delta", []byte(`thinking_delta","thinking":"`)},
}

// parseFastDelta returns ok=false when data is not in the exact expected shape.
func parseFastDelta(data []byte) (d fastDelta, ok bool) {
	if !bytes.HasPrefix(data, deltaPrefix) {
		return d, false
	}
	rest := data[len(deltaPrefix):]
	n, i := 0, 0
	for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		if i >= 6 {
			return d, false
		}
		n = n*10 + int(rest[i]-'0')
	}
	if i == 0 || (i > 1 && rest[0] == '0') { // JSON has no leading zeros
		return d, false
	}
	rest = rest[i:]
	if !bytes.HasPrefix(rest, deltaTypeStart) {
		return d, false
	}
	rest = rest[len(deltaTypeStart):]
	for _, f := range deltaFields {
		if !bytes.HasPrefix(rest, f.field) {
			continue
		}
		start := len(f.field) // just past the opening quote
		body := rest[start:]
		end, escaped := -1, false
		for j := 0; j < len(body); j++ {
			c := body[j]
			if c == '\\' {
				escaped = true
				j++
				continue
			}
			if c == '"' {
				end = j
				break
			}
			if c < 0x20 {
				return d, false
			}
		}
		if end < 0 || !bytes.Equal(body[end:], []byte(`"}}`)) {
			return d, false
		}
		if !escaped && utf8.Valid(body[:end]) {
			return fastDelta{index: n, typ: f.typ, value: string(body[:end])}, true
		}
		// encoding/json replaces invalid UTF-8 with U+FFFD; the slow path does the same.
		v, err := decodeString(rest[start-1 : start+end+1])
		if err != nil {
			return d, false
		}
		return fastDelta{index: n, typ: f.typ, value: v}, true
	}
	return d, false
}

// decodeString reads a JSON string literal with escapes.
func decodeString(raw []byte) (string, error) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
