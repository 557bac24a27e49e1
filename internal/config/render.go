package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file renders Go values as TOML text for edits. Structs keep their
// field order (so `mcp add` writes command before args), maps are sorted,
// nested tables become inline tables so an edit stays on the lines it owns.

type kv struct {
	key   string
	value any // a scalar, []any, or []kv for a table
}

// normalize turns v into scalars, []any and []kv, dropping nil pointers and
// omitempty zero fields the way go-toml's marshaller would.
func normalize(v any) (any, error) {
	return normalizeValue(reflect.ValueOf(v))
}

func normalizeValue(rv reflect.Value) (any, error) {
	if !rv.IsValid() {
		return nil, nil
	}
	if t, ok := rv.Interface().(time.Time); ok {
		return t, nil
	}
	if pairs, ok := rv.Interface().([]kv); ok {
		return pairs, nil
	}
	if n, ok := rv.Interface().(json.Number); ok {
		// JSON callers (app-server config/value/write) decode with
		// UseNumber so integers stay integers in TOML.
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid number %q", n)
		}
		return f, nil
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return normalizeValue(rv.Elem())
	case reflect.String:
		if !utf8.ValidString(rv.String()) {
			return nil, fmt.Errorf("string %q is not valid UTF-8", rv.String())
		}
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("integer %d does not fit in TOML", u)
		}
		return int64(u), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}, nil
		}
		out := make([]any, 0, rv.Len())
		for i := 0; i < rv.Len(); i++ {
			e, err := normalizeValue(rv.Index(i))
			if err != nil {
				return nil, err
			}
			if e == nil {
				return nil, fmt.Errorf("TOML arrays cannot hold null")
			}
			out = append(out, e)
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys must be strings, not %s", rv.Type().Key())
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			if !utf8.ValidString(k.String()) {
				return nil, fmt.Errorf("key %q is not valid UTF-8", k.String())
			}
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		out := make([]kv, 0, len(keys))
		for _, k := range keys {
			e, err := normalizeValue(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())))
			if err != nil {
				return nil, err
			}
			if e != nil {
				out = append(out, kv{k, e})
			}
		}
		return out, nil
	case reflect.Struct:
		return normalizeStruct(rv)
	}
	return nil, fmt.Errorf("cannot write a %s to TOML", rv.Type())
}

func normalizeStruct(rv reflect.Value) (any, error) {
	t := rv.Type()
	out := []kv{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := rv.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if (fv.Kind() == reflect.Map || fv.Kind() == reflect.Slice) && fv.Len() == 0 && strings.Contains(opts, "omitempty") {
			continue
		}
		e, err := normalizeValue(fv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if e != nil {
			out = append(out, kv{name, e})
		}
	}
	return out, nil
}

// renderValue writes a normalized value on one line.
func renderValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(quoteString(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(formatFloat(x))
	case time.Time:
		b.WriteString(x.Format(time.RFC3339Nano))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			renderValue(b, e)
		}
		b.WriteByte(']')
	case []kv:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{ ")
		for i, p := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteKey(p.key))
			b.WriteString(" = ")
			renderValue(b, p.value)
		}
		b.WriteString(" }")
	}
}

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isBareKeyChar(k[i]) {
			return false
		}
	}
	return true
}

func isBareKeyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func quoteKey(k string) string {
	if isBareKey(k) {
		return k
	}
	return quoteString(k)
}

func joinKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = quoteKey(p)
	}
	return strings.Join(parts, ".")
}

// quoteString writes a TOML basic string.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// TOML text must be UTF-8; keep the byte visible rather than
			// writing an invalid file.
			fmt.Fprintf(&b, "\\u%04X", s[i])
			i++
			continue
		}
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, "\\u%04X", r)
			} else {
				b.WriteRune(r)
			}
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}
