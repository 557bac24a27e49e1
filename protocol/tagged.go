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
	var buf bytes.Buffer
	buf.Grow(len(body) + len(key) + len(tag) + 8)
	buf.WriteByte('{')
	k, _ := Marshal(key)
	t, _ := Marshal(tag)
	buf.Write(k)
	buf.WriteByte(':')
	buf.Write(t)
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// readTag returns the string value of key in the JSON object data.
func readTag(data []byte, key string) (string, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return "", err
	}
	raw, ok := probe[key]
	if !ok {
		return "", fmt.Errorf("missing field `%s`", key)
	}
	var tag string
	if err := json.Unmarshal(raw, &tag); err != nil {
		return "", fmt.Errorf("field `%s`: %w", key, err)
	}
	return tag, nil
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
