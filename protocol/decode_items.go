package protocol

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// One-pass decoding of the common response items. encoding/json validated each item once
// and then decoded it by reflection, with nested UnmarshalJSON calls validating their parts
// again; a rollout resume pays that for every item. Here one strict scan (validate.go)
// both validates the item and picks out its fields. Anything unusual (a null
// where a string is expected, a key that matches a field only case-insensitively, a nested
// value that does not decode) returns ok=false and the caller uses encoding/json, so results
// and errors stay exactly those of the reflection path. FuzzDecodeResponseItemPaths checks
// the two against each other.

// eachField calls fn with every top-level key and raw value of the JSON object data (which
// must be all of data, bar surrounding space); it validates as it goes and returns false at
// anything invalid or as soon as fn does.
func eachField(data []byte, fn func(key string, val []byte) bool) bool {
	return eachMember(data, func(key, val []byte) bool { return fn(string(key), val) })
}

// eachMember is eachField with the key as bytes: the body of the key's literal when it
// needs no decoding (no copy), its decoded text otherwise.
func eachMember(data []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for i < len(data) {
		kend, ok := skipValidString(data, i)
		if !ok {
			return false
		}
		key := data[i+1 : kend-1]
		if !plainKey(key) {
			k, ok := unquoteString(data[i:kend])
			if !ok {
				return false
			}
			key = []byte(k)
		}
		i = skipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend, ok := skipValid(data, i, 1)
		if !ok || !fn(key, data[i:vend]) {
			return false
		}
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		return i < len(data) && data[i] == '}' && skipSpace(data, i+1) == len(data)
	}
	return false
}

// plainKey reports whether a string literal's body reads as it is: printable ASCII without
// escapes.
func plainKey(body []byte) bool {
	for _, c := range body {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}

// ValidObjectMembers is ObjectMembers that validates as it goes: fn gets every top-level
// key (decoded; a slice of data when it needs no decoding, so valid only during the call)
// and raw value of the JSON object data (all of data bar surrounding space), and the result
// is false as soon as data is not valid JSON or fn returns false. It accepts what
// json.Valid accepts, except very deep nesting, so a false sends the caller to
// encoding/json, which then decides. The rollout reader checks and splits each line with
// it in one pass instead of running json.Valid first.
func ValidObjectMembers(data []byte, fn func(key, value []byte) bool) bool {
	return eachMember(data, fn)
}

// ValidArrayElems is ValidObjectMembers for a JSON array: fn gets every element.
func ValidArrayElems(data []byte, fn func(elem []byte) bool) bool {
	return eachElem(data, fn)
}

// UnquoteString decodes the JSON string literal b as encoding/json does; false when b is
// not one.
func UnquoteString(b []byte) (string, bool) { return unquoteString(b) }

// eachElem calls fn with every element of the JSON array data, validating as eachField does.
func eachElem(data []byte, fn func(elem []byte) bool) bool {
	if len(data) == 0 || data[0] != '[' {
		return false
	}
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return i+1 == len(data)
	}
	for i < len(data) {
		end, ok := skipValid(data, i, 1)
		if !ok || !fn(data[i:end]) {
			return false
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		return i < len(data) && data[i] == ']' && i+1 == len(data)
	}
	return false
}

// unquoteString decodes a JSON string literal with encoding/json's exact semantics.
func unquoteString(b []byte) (string, bool) {
	if s, ok := unquoteSimple(b); ok {
		return s, true
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	if s, ok := unescapeShort(b[1 : len(b)-1]); ok {
		return s, true
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false
	}
	return s, true
}

// unknownKey accepts a key the item does not model, unless encoding/json would match it to
// one of known case-insensitively.
func unknownKey(key string, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(key, k) {
			return false
		}
	}
	return true
}

// idField reads "id" as lenientString does: strings are kept, other values ignored.
func idField(val []byte, id *string) bool {
	if len(val) > 0 && val[0] == '"' {
		s, ok := unquoteString(val)
		if !ok {
			return false
		}
		*id = s
	}
	return true
}

func strField(val []byte, dst *string) bool {
	s, ok := unquoteString(val)
	if ok {
		*dst = s
	}
	return ok
}

func decodeMessageFast(data []byte) (MessageItem, bool) {
	var m MessageItem
	ok := eachField(data, func(key string, val []byte) bool {
		switch key {
		case "type":
			return true
		case "id":
			return idField(val, &m.ID)
		case "role":
			return strField(val, &m.Role)
		case "phase":
			return strField(val, &m.Phase)
		case "end_turn":
			switch string(val) {
			case "true", "false":
				b := string(val) == "true"
				m.EndTurn = &b
			case "null":
				m.EndTurn = nil
			default:
				return false
			}
			return true
		case "content":
			content := []ContentItem{}
			if !eachElem(val, func(elem []byte) bool {
				var c ContentItem
				if c.UnmarshalJSON(elem) != nil {
					return false
				}
				content = append(content, c)
				return true
			}) {
				return false
			}
			m.Content = content
			return true
		}
		return unknownKey(key, "id", "role", "phase", "end_turn", "content")
	})
	return m, ok
}

// decodeTypeTexts reads an array of {"type","text"} objects (reasoning summaries and content).
func decodeTypeTexts(val []byte, add func(typ, text string)) bool {
	return eachElem(val, func(elem []byte) bool {
		var typ, text string
		if !eachField(elem, func(key string, v []byte) bool {
			switch key {
			case "type":
				return strField(v, &typ)
			case "text":
				return strField(v, &text)
			}
			return unknownKey(key, "type", "text")
		}) {
			return false
		}
		add(typ, text)
		return true
	})
}

func decodeReasoningFast(data []byte) (ReasoningItem, bool) {
	var r ReasoningItem
	// encoding/json decodes a repeated array key into the elements of the first one, merging
	// their fields; leave that oddity to it.
	var sawSummary, sawContent bool
	ok := eachField(data, func(key string, val []byte) bool {
		switch key {
		case "type":
			return true
		case "id":
			return idField(val, &r.ID)
		case "summary":
			if sawSummary {
				return false
			}
			sawSummary = true
			summary := []ReasoningSummary{}
			if !decodeTypeTexts(val, func(typ, text string) {
				summary = append(summary, ReasoningSummary{Type: typ, Text: text})
			}) {
				return false
			}
			r.Summary = summary
			return true
		case "content":
			if sawContent {
				return false
			}
			sawContent = true
			content := []ReasoningContent{}
			if !decodeTypeTexts(val, func(typ, text string) {
				content = append(content, ReasoningContent{Type: typ, Text: text})
			}) {
				return false
			}
			r.Content = content
			return true
		case "encrypted_content":
			if string(val) == "null" {
				r.EncryptedContent = nil
				return true
			}
			var s string
			if !strField(val, &s) {
				return false
			}
			r.EncryptedContent = &s
			return true
		}
		return unknownKey(key, "id", "summary", "content", "encrypted_content")
	})
	return r, ok
}

func decodeFunctionCallFast(data []byte) (FunctionCallItem, bool) {
	var f FunctionCallItem
	ok := eachField(data, func(key string, val []byte) bool {
		switch key {
		case "type":
			return true
		case "id":
			return idField(val, &f.ID)
		case "name":
			return strField(val, &f.Name)
		case "namespace":
			return strField(val, &f.Namespace)
		case "arguments":
			return strField(val, &f.Arguments)
		case "call_id":
			return strField(val, &f.CallID)
		}
		return unknownKey(key, "id", "name", "namespace", "arguments", "call_id")
	})
	return f, ok
}

func decodeCustomToolCallFast(data []byte) (CustomToolCallItem, bool) {
	var c CustomToolCallItem
	ok := eachField(data, func(key string, val []byte) bool {
		switch key {
		case "type":
			return true
		case "id":
			return idField(val, &c.ID)
		case "status":
			return strField(val, &c.Status)
		case "call_id":
			return strField(val, &c.CallID)
		case "name":
			return strField(val, &c.Name)
		case "input":
			return strField(val, &c.Input)
		}
		return unknownKey(key, "id", "status", "call_id", "name", "input")
	})
	return c, ok
}

// decodeOutputFast reads function_call_output and custom_tool_call_output.
func decodeOutputFast(data []byte) (callID string, out FunctionCallOutputPayload, ok bool) {
	ok = eachField(data, func(key string, val []byte) bool {
		switch key {
		case "type":
			return true
		case "call_id":
			return strField(val, &callID)
		case "output":
			var p FunctionCallOutputPayload
			if p.UnmarshalJSON(val) != nil {
				return false
			}
			out = p
			return true
		}
		return unknownKey(key, "call_id", "output")
	})
	return callID, out, ok
}

// decodeItemFast decodes the common item types in one pass; ok=false means "use the general
// path" (an unmodelled type, or anything unusual).
func decodeItemFast(tag string, data []byte) (ResponseItem, bool) {
	switch tag {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output":
	default:
		return nil, false
	}
	switch tag {
	case "message":
		if m, ok := decodeMessageFast(data); ok {
			return m, true
		}
	case "reasoning":
		if r, ok := decodeReasoningFast(data); ok {
			return r, true
		}
	case "function_call":
		if f, ok := decodeFunctionCallFast(data); ok {
			return f, true
		}
	case "custom_tool_call":
		if c, ok := decodeCustomToolCallFast(data); ok {
			return c, true
		}
	case "function_call_output":
		if id, out, ok := decodeOutputFast(data); ok {
			return FunctionCallOutputItem{CallID: id, Output: out}, true
		}
	case "custom_tool_call_output":
		if id, out, ok := decodeOutputFast(data); ok {
			return CustomToolCallOutputItem{CallID: id, Output: out}, true
		}
	}
	return nil, false
}

// unescapeShort decodes a string body whose escapes are all two-character ones (\n, \",
// ...), the common case for text. \u escapes, invalid UTF-8 and raw control characters are
// left to encoding/json (ok=false), which has the exact rules for them.
func unescapeShort(body []byte) (string, bool) {
	if !utf8.Valid(body) {
		return "", false
	}
	// Built in place: a long answer is allocated once, at its size.
	var out strings.Builder
	out.Grow(len(body))
	start := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c < 0x20 || c == '"':
			return "", false
		case c != '\\':
			continue
		}
		out.Write(body[start:i])
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			out.WriteByte(body[i])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		default:
			return "", false
		}
		start = i + 1
	}
	out.Write(body[start:])
	return out.String(), true
}
