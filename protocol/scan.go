package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The one JSON scanner of the module: the tagged decoders here, the rollout reader's fast
// path and the JSON-RPC server's id recovery all walk objects with it. It checks nesting and
// strings only; whoever decodes a value validates it (see skipValid for the validating walk).

// errMalformedObject is what ObjectMembers reports for input that breaks off or is not JSON.
var errMalformedObject = errors.New("malformed JSON object")

// ObjectMembers calls fn with each top-level member of the JSON object data, in order: the
// key (unescaped) and the raw value. It stops, without reading further, when fn returns false,
// so a truncated or broken object still yields the members before the break. Values are not
// validated beyond nesting and string quoting.
func ObjectMembers(data []byte, fn func(key string, value []byte) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errors.New("expected a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		end, ok := skipString(data, i)
		if !ok {
			return errMalformedObject
		}
		k, ok := unquoteSimple(data[i:end])
		if !ok {
			if err := json.Unmarshal(data[i:end], &k); err != nil {
				return errMalformedObject
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errMalformedObject
		}
		i = skipSpace(data, i+1)
		vend, ok := skipValue(data, i)
		if !ok {
			return errMalformedObject
		}
		if !fn(k, data[i:vend]) {
			return nil
		}
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return nil
		}
		return errMalformedObject
	}
}

// PeekTag returns the string value of key in the JSON object data, reading members only up
// to it: the tag of an internally tagged value (Codex writes it first) without decoding the
// rest.
func PeekTag(data []byte, key string) (string, error) {
	var raw []byte
	found := false
	err := ObjectMembers(data, func(k string, v []byte) bool {
		if k == key {
			raw, found = v, true
			return false
		}
		return true
	})
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("missing field `%s`", key)
	}
	if tag, ok := unquoteSimple(raw); ok {
		return tag, nil
	}
	var tag string
	if err := json.Unmarshal(raw, &tag); err != nil {
		return "", fmt.Errorf("field `%s`: %w", key, err)
	}
	return tag, nil
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
