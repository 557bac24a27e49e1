package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// This file writes the common response items straight into one byte slice. A model request
// re-sends the whole history, so for a long session the reflection-based path (marshal a
// plain struct, splice in the tag, then let encoding/json re-validate and compact every
// MarshalJSON result) dominated the cost of building a request. The bytes are identical to
// that path: same field order, same omitted empties, same string escaping (serde's: no HTML
// escaping). append_test.go checks the two against each other.

// MarshalItems appends the JSON array of items to dst. It gives the same bytes as encoding
// each item with Marshal and joining them with commas inside brackets, without the
// re-validation encoding/json does around every MarshalJSON call.
func MarshalItems(dst []byte, items []ResponseItem) ([]byte, error) {
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendResponseItem(dst, it); err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
	}
	return append(dst, ']'), nil
}

// AppendResponseItem appends the JSON of one item to dst, exactly as Marshal(it) writes it.
func AppendResponseItem(dst []byte, it ResponseItem) ([]byte, error) {
	switch v := it.(type) {
	case nil:
		return append(dst, "null"...), nil
	case MessageItem:
		return v.appendJSON(dst)
	case ReasoningItem:
		return v.appendJSON(dst), nil
	case FunctionCallItem:
		return v.appendJSON(dst), nil
	case FunctionCallOutputItem:
		return appendOutputItem(dst, v.ItemType(), v.CallID, v.Output)
	case CustomToolCallItem:
		return v.appendJSON(dst), nil
	case CustomToolCallOutputItem:
		return appendOutputItem(dst, v.ItemType(), v.CallID, v.Output)
	case CompactionItem:
		dst = appendTagOpen(dst, v.ItemType())
		dst = append(dst, `,"encrypted_content":`...)
		return append(appendString(dst, v.EncryptedContent), '}'), nil
	case OtherItem:
		if len(v.Raw) == 0 {
			return append(dst, `{"type":"other"}`...), nil
		}
		// encoding/json compacts a MarshalJSON result; do the same.
		buf := bytes.NewBuffer(dst)
		if err := json.Compact(buf, v.Raw); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	// Rare shapes (local shell, web search, pointers) keep the general path.
	b, err := Marshal(it)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendTagOpen writes `{"type":"<tag>"`; the caller adds the remaining fields and `}`.
func appendTagOpen(dst []byte, tag string) []byte {
	dst = append(dst, `{"type":`...)
	return appendString(dst, tag)
}

func (i MessageItem) appendJSON(dst []byte) ([]byte, error) {
	dst = appendTagOpen(dst, i.ItemType())
	dst = append(dst, `,"role":`...)
	dst = appendString(dst, i.Role)
	dst = append(dst, `,"content":`...)
	dst, err := appendContentItems(dst, i.Content)
	if err != nil {
		return nil, err
	}
	if i.EndTurn != nil {
		if *i.EndTurn {
			dst = append(dst, `,"end_turn":true`...)
		} else {
			dst = append(dst, `,"end_turn":false`...)
		}
	}
	if i.Phase != "" {
		dst = append(dst, `,"phase":`...)
		dst = appendString(dst, i.Phase)
	}
	return append(dst, '}'), nil
}

func (i ReasoningItem) appendJSON(dst []byte) []byte {
	dst = appendTagOpen(dst, i.ItemType())
	dst = append(dst, `,"summary":[`...)
	for k, s := range i.Summary {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendTypeText(dst, s.Type, s.Text)
	}
	dst = append(dst, ']')
	if len(i.Content) > 0 {
		dst = append(dst, `,"content":[`...)
		for k, c := range i.Content {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendTypeText(dst, c.Type, c.Text)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"encrypted_content":`...)
	if i.EncryptedContent == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendString(dst, *i.EncryptedContent)
	}
	return append(dst, '}')
}

func appendTypeText(dst []byte, typ, text string) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, typ)
	dst = append(dst, `,"text":`...)
	dst = appendString(dst, text)
	return append(dst, '}')
}

func (i FunctionCallItem) appendJSON(dst []byte) []byte {
	dst = appendTagOpen(dst, i.ItemType())
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, i.Name)
	if i.Namespace != "" {
		dst = append(dst, `,"namespace":`...)
		dst = appendString(dst, i.Namespace)
	}
	dst = append(dst, `,"arguments":`...)
	dst = appendString(dst, i.Arguments)
	dst = append(dst, `,"call_id":`...)
	dst = appendString(dst, i.CallID)
	return append(dst, '}')
}

func (i CustomToolCallItem) appendJSON(dst []byte) []byte {
	dst = appendTagOpen(dst, i.ItemType())
	if i.Status != "" {
		dst = append(dst, `,"status":`...)
		dst = appendString(dst, i.Status)
	}
	dst = append(dst, `,"call_id":`...)
	dst = appendString(dst, i.CallID)
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, i.Name)
	dst = append(dst, `,"input":`...)
	dst = appendString(dst, i.Input)
	return append(dst, '}')
}

// appendOutputItem writes function_call_output and custom_tool_call_output, which share a shape.
func appendOutputItem(dst []byte, tag, callID string, out FunctionCallOutputPayload) ([]byte, error) {
	dst = appendTagOpen(dst, tag)
	dst = append(dst, `,"call_id":`...)
	dst = appendString(dst, callID)
	dst = append(dst, `,"output":`...)
	dst, err := out.appendJSON(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func (p FunctionCallOutputPayload) appendJSON(dst []byte) ([]byte, error) {
	if p.ContentItems != nil {
		return appendContentItems(dst, p.ContentItems)
	}
	return appendString(dst, p.Content), nil
}

// appendContentItems writes the array form; nil writes [] as the message encoders expect.
func appendContentItems(dst []byte, items []ContentItem) ([]byte, error) {
	dst = append(dst, '[')
	for k, c := range items {
		if k > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = c.appendJSON(dst); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

func (c ContentItem) appendJSON(dst []byte) ([]byte, error) {
	switch c.Type {
	case ContentInputText, ContentOutputText:
		return appendTypeText(dst, string(c.Type), c.Text), nil
	case ContentInputImage:
		dst = appendTagOpen(dst, string(c.Type))
		dst = append(dst, `,"image_url":`...)
		dst = appendString(dst, c.ImageURL)
		if c.Detail != "" {
			dst = append(dst, `,"detail":`...)
			dst = appendString(dst, c.Detail)
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("unknown content item type %q", c.Type)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does with HTML escaping off:
// quote, backslash and control characters escaped (\b \f \n \r \t short, others \u00XX),
// invalid UTF-8 replaced by \ufffd, and U+2028/U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
