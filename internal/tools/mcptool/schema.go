package mcptool

import (
	"bytes"
	"encoding/json"
	"sort"
)

// sanitizeSchema turns an MCP tool's inputSchema into the subset of JSON Schema Codex sends
// to the model: every node gets a `type` (inferred when missing), objects always carry
// `properties`, and only the keywords the Responses API understands are kept, in a fixed
// order (type, description, enum, items, properties, required, additionalProperties, anyOf).
func sanitizeSchema(raw any) json.RawMessage {
	var buf bytes.Buffer
	writeSchema(&buf, raw, true)
	return buf.Bytes()
}

func writeSchema(buf *bytes.Buffer, v any, top bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && !top {
			// `true`/`false` schemas are valid where a schema is (additionalProperties).
			writeJSON(buf, b)
			return
		}
		m = map[string]any{}
	}
	typ := schemaType(m, top)
	var fields []field
	if typ != "" {
		fields = append(fields, field{"type", typ})
	}
	if d, ok := m["description"].(string); ok {
		fields = append(fields, field{"description", d})
	}
	if e, ok := m["enum"].([]any); ok {
		fields = append(fields, field{"enum", e})
	}
	if typ == "array" {
		items := m["items"]
		if items == nil {
			items = map[string]any{}
		}
		fields = append(fields, field{"items", schemaValue{items}})
	}
	if typ == "object" {
		props, _ := m["properties"].(map[string]any)
		fields = append(fields, field{"properties", propsValue(props)})
		if r, ok := m["required"].([]any); ok {
			fields = append(fields, field{"required", r})
		}
		switch ap := m["additionalProperties"].(type) {
		case bool:
			fields = append(fields, field{"additionalProperties", ap})
		case map[string]any:
			fields = append(fields, field{"additionalProperties", schemaValue{ap}})
		}
	}
	if any, ok := m["anyOf"].([]any); ok {
		var alts []schemaValue
		for _, a := range any {
			alts = append(alts, schemaValue{a})
		}
		fields = append(fields, field{"anyOf", alts})
	}
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSON(buf, f.key)
		buf.WriteByte(':')
		switch fv := f.val.(type) {
		case schemaValue:
			writeSchema(buf, fv.v, false)
		case []schemaValue:
			buf.WriteByte('[')
			for j, s := range fv {
				if j > 0 {
					buf.WriteByte(',')
				}
				writeSchema(buf, s.v, false)
			}
			buf.WriteByte(']')
		case orderedProps:
			buf.WriteByte('{')
			for j, k := range fv.keys {
				if j > 0 {
					buf.WriteByte(',')
				}
				writeJSON(buf, k)
				buf.WriteByte(':')
				writeSchema(buf, fv.m[k], false)
			}
			buf.WriteByte('}')
		default:
			writeJSON(buf, fv)
		}
	}
	buf.WriteByte('}')
}

type field struct {
	key string
	val any
}

type schemaValue struct{ v any }

type orderedProps struct {
	keys []string
	m    map[string]any
}

func propsValue(m map[string]any) orderedProps {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return orderedProps{keys: keys, m: m}
}

// schemaType picks one type: the first non-null of a type list, or one inferred from the
// keywords present (the top level is always an object).
func schemaType(m map[string]any, top bool) string {
	if top {
		return "object"
	}
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	switch {
	case m["properties"] != nil || m["additionalProperties"] != nil:
		return "object"
	case m["items"] != nil:
		return "array"
	case m["anyOf"] != nil:
		return ""
	}
	return "string"
}

func writeJSON(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	buf.Write(b)
}
