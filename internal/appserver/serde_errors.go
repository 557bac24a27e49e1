package appserver

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// serdeTypeError words a params type mismatch the way Codex's app-server (serde_json) does,
// so clients that match on the text see the same thing: "invalid type: integer `5`, expected
// a string", "invalid value: integer `-1`, expected u32", "invalid type: map, expected a
// string". The offending value is looked up in raw by the error's field path.
func serdeTypeError(raw json.RawMessage, te *json.UnmarshalTypeError) string {
	expected := serdeExpected(te.Type)
	val, found := lookupField(raw, te.Field)
	if !found {
		return "invalid type: " + te.Value + ", expected " + expected
	}
	if n, ok := val.(json.Number); ok {
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			if i < 0 && isUnsigned(te.Type) {
				return "invalid value: integer `" + n.String() + "`, expected " + expected
			}
			return "invalid type: integer `" + n.String() + "`, expected " + expected
		}
		if isInteger(te.Type) {
			if _, err := strconv.ParseFloat(string(n), 64); err == nil {
				return "invalid type: floating point `" + n.String() + "`, expected " + expected
			}
		}
		return "invalid value: number `" + n.String() + "`, expected " + expected
	}
	return "invalid type: " + serdeUnexpected(val) + ", expected " + expected
}

// lookupField follows a dotted field path from the top of raw. The path may lead with the
// names of embedded Go structs that the JSON does not have ("threadOverrides.cwd" for a
// top-level "cwd"), so shorter suffixes of it are tried too.
func lookupField(raw json.RawMessage, path string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var top any
	if dec.Decode(&top) != nil {
		return nil, false
	}
	if path == "" {
		return top, true
	}
	keys := strings.Split(path, ".")
	for i := range keys {
		if v, ok := followKeys(top, keys[i:]); ok {
			return v, true
		}
	}
	return nil, false
}

func followKeys(v any, keys []string) (any, bool) {
	for _, key := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok {
			return nil, false
		}
	}
	return v, true
}

func serdeUnexpected(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean `" + strconv.FormatBool(x) + "`"
	case string:
		b, _ := json.Marshal(x)
		return "string " + string(b)
	case []any:
		return "sequence"
	case map[string]any:
		return "map"
	}
	return "value"
}

// pathString is a params field Codex declares as an absolute path (AbsolutePathBuf), which
// serde calls a "path string".
type pathString string

// serdeExpected names a Go type as serde names the Rust type Codex declares for it.
func serdeExpected(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	if t == reflect.TypeOf(pathString("")) {
		return "path string"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64:
		return "i64"
	case reflect.Int32:
		return "i32"
	case reflect.Int16, reflect.Int8:
		return "i16"
	case reflect.Uint, reflect.Uint64:
		return "u64"
	case reflect.Uint32:
		return "u32"
	case reflect.Uint16, reflect.Uint8:
		return "u16"
	case reflect.Float32, reflect.Float64:
		return "f64"
	case reflect.Slice, reflect.Array:
		return "a sequence"
	case reflect.Map:
		return "a map"
	case reflect.Struct:
		return "struct " + t.Name()
	}
	return "a value"
}

// kindOf is t's kind behind any pointers (Invalid for nil).
func kindOf(t reflect.Type) reflect.Kind {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return reflect.Invalid
	}
	return t.Kind()
}

func isUnsigned(t reflect.Type) bool {
	switch kindOf(t) {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func isInteger(t reflect.Type) bool {
	switch kindOf(t) {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return isUnsigned(t)
}
