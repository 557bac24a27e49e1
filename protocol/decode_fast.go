package protocol

import (
	"strings"
	"unicode/utf8"
)

// Shortcuts for decoding the small, flat pieces a long history is made of (content items,
// tags, plain-text tool outputs). encoding/json validates every Unmarshal input in full before
// decoding it, and a nested UnmarshalJSON re-validates its part, so the same bytes were
// scanned several times. Each shortcut handles only the plain, valid case and reports
// ok=false otherwise, so the caller falls back to encoding/json and its exact results.

// unquoteSimple returns the content of the JSON string literal b (quotes included) when it
// needs no unescaping: no backslash, no control character, valid UTF-8.
func unquoteSimple(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	body := b[1 : len(b)-1]
	for _, c := range body {
		if c < 0x20 || c == '\\' || c == '"' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// decodeContentFast reads a content item written as a flat object of plain strings, the
// shape every content item on the wire has. tagOK is false when no exact "type" key was seen.
func decodeContentFast(data []byte) (w contentWire, tag string, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return w, "", false
	}
	i = skipSpace(data, i+1)
	tagSeen := false
	if i < len(data) && data[i] == '}' {
		return w, "", false // no tag: let the full path report it
	}
	for {
		kend, ok := skipString(data, i)
		if !ok {
			return w, "", false
		}
		key, ok := unquoteSimple(data[i:kend])
		if !ok {
			return w, "", false
		}
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return w, "", false
		}
		i = skipSpace(data, i+1)
		var vend int
		switch key {
		case "type", "text", "image_url", "detail":
			if vend, ok = skipString(data, i); !ok {
				return w, "", false
			}
			val, ok := unquoteStrict(data[i:vend])
			if !ok {
				return w, "", false
			}
			switch key {
			case "type":
				if !tagSeen {
					tag, tagSeen = val, true
				}
			case "text":
				w.Text = val
			case "image_url":
				w.ImageURL = val
			case "detail":
				w.Detail = val
			}
		default:
			// encoding/json matches field names case-insensitively; leave those to it.
			for _, k := range [...]string{"type", "text", "image_url", "detail"} {
				if strings.EqualFold(key, k) {
					return w, "", false
				}
			}
			// Another member (an answer's "annotations", "logprobs"): any valid value, not
			// read, so that a long answer is not decoded a second time by encoding/json.
			if vend, ok = skipValid(data, i, 0); !ok {
				return w, "", false
			}
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return w, "", false
		}
		if data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if data[i] != '}' {
			return w, "", false
		}
		if skipSpace(data, i+1) != len(data) || !tagSeen {
			return w, "", false
		}
		return w, tag, true
	}
}

// contentWire is the union of a content item's fields as they are read.
type contentWire struct {
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

// unquoteStrict decodes a JSON string literal whose escapes are all short ones; it accepts
// only valid JSON strings, so it is safe on input nothing has validated yet.
func unquoteStrict(b []byte) (string, bool) {
	if s, ok := unquoteSimple(b); ok {
		return s, true
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	return unescapeShort(b[1 : len(b)-1])
}
