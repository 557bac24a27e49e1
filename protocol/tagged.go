package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// marshalTagged encodes v (a struct) and splices `"<key>":"<tag>"` in front of its fields so
// the tag is always the first key, as serde's internally tagged enums write it.
func marshalTagged(key, tag string, v any) ([]byte, error) {
	body, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return spliceTag(key, tag, body)
}

func spliceTag(key, tag string, body []byte) ([]byte, error) {
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("tagged value %q did not encode as an object", tag)
	}
	buf := make([]byte, 0, len(body)+len(key)+len(tag)+8)
	buf = append(buf, '{')
	buf = appendString(buf, key)
	buf = append(buf, ':')
	buf = appendString(buf, tag)
	if len(body) > 2 {
		buf = append(buf, ',')
		buf = append(buf, body[1:]...)
	} else {
		buf = append(buf, '}')
	}
	return buf, nil
}

// readTag returns the string value of key in the JSON object data. It scans the top level
// only and stops at the key (Codex writes the tag first), so the variant's fields are parsed
// once, by the variant's decoder, which also rejects malformed input after the tag.
func readTag(data []byte, key string) (string, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return "", fmt.Errorf("expected a JSON object")
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return "", fmt.Errorf("missing field `%s`", key)
		}
		end, ok := skipString(data, i)
		if !ok {
			return "", fmt.Errorf("malformed JSON object")
		}
		k := string(data[i+1 : end-1])
		if bytes.IndexByte(data[i:end], '\\') >= 0 {
			if err := json.Unmarshal(data[i:end], &k); err != nil {
				return "", err
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return "", fmt.Errorf("malformed JSON object")
		}
		i = skipSpace(data, i+1)
		vend, ok := skipValue(data, i)
		if !ok {
			return "", fmt.Errorf("malformed JSON object")
		}
		if k == key {
			if tag, ok := unquoteSimple(data[i:vend]); ok {
				return tag, nil
			}
			var tag string
			if err := json.Unmarshal(data[i:vend], &tag); err != nil {
				return "", fmt.Errorf("field `%s`: %w", key, err)
			}
			return tag, nil
		}
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == '}' {
			return "", fmt.Errorf("missing field `%s`", key)
		}
		return "", fmt.Errorf("malformed JSON object")
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at i.
func skipString(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, false
	}
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index after the JSON value starting at i. It checks nesting and
// strings only; the full decoder validates the rest.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ' ' && data[i] != '\n' && data[i] != '\t' && data[i] != '\r' {
		i++
	}
	return i, true
}

// UnknownVariantError reports a tag value this package does not know.
type UnknownVariantError struct {
	// Enum is the union being decoded, e.g. "EventMsg".
	Enum string
	// Variant is the unrecognised tag.
	Variant string
}

func (e *UnknownVariantError) Error() string {
	return fmt.Sprintf("unknown %s variant `%s`", e.Enum, e.Variant)
}

// strictUnmarshal decodes into a concrete variant; unknown fields are tolerated as serde does.
func strictUnmarshal(data []byte, v any) error {
	return json.Unmarshal(data, v)
}
