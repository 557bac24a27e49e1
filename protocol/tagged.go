package protocol

import (
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
	return PeekTag(data, key)
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
