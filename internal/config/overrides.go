package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Override is one parsed `-c key=value` command-line override.
type Override struct {
	Raw   string   // as given, for messages
	Path  []string // the dotted key, split into parts
	Value any      // decoded TOML value, or the literal string
}

// ParseOverride reads `key=value`. The key is a dotted TOML key (quoted
// parts allowed: `projects."/a b".trust_level`). The value is parsed as TOML;
// when that fails it is taken as a literal string with surrounding quotes
// trimmed, so `-c model=o3` works as users expect.
func ParseOverride(s string) (Override, error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok {
		return Override{}, fmt.Errorf("Invalid override (missing '='): %s", s)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return Override{}, fmt.Errorf("Empty key in override: %s", s)
	}
	path, err := parseDottedKey(key)
	if err != nil {
		return Override{}, fmt.Errorf("invalid key in override %s: %w", s, err)
	}
	return Override{Raw: s, Path: path, Value: parseOverrideValue(value)}, nil
}

// ParseOverrides parses every `-c` argument in order.
func ParseOverrides(args []string) ([]Override, error) {
	out := make([]Override, 0, len(args))
	for _, a := range args {
		o, err := ParseOverride(a)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ParseKeyPath splits a dotted TOML key ("mcp_servers.docs.args",
// `projects."/a.b".trust_level`) into its parts, as app-server
// config/value/write and `-c` spell them.
func ParseKeyPath(key string) ([]string, error) { return parseDottedKey(strings.TrimSpace(key)) }

func parseDottedKey(key string) ([]string, error) {
	var p unstable.Parser
	doc := []byte(key + " = 0\n")
	p.Reset(doc)
	if p.NextExpression() {
		if n := p.Expression(); n.Kind == unstable.KeyValue {
			parts, _, _ := keyParts(n.Key())
			if !p.NextExpression() && p.Error() == nil {
				return parts, nil
			}
		}
	}
	// Not a valid TOML key (e.g. contains spaces or slashes unquoted): fall
	// back to a plain split, which is what Codex does for every key.
	parts := strings.Split(key, ".")
	for _, part := range parts {
		if part == "" {
			return nil, fmt.Errorf("empty key part in %q", key)
		}
	}
	return parts, nil
}

func parseOverrideValue(value string) any {
	var m map[string]any
	if err := toml.Unmarshal([]byte("_v_ = "+value), &m); err == nil {
		if v, ok := m["_v_"]; ok {
			return v
		}
	}
	return strings.Trim(strings.TrimSpace(value), `"'`)
}

// setPath writes value at path inside m, creating tables on the way and
// replacing a non-table value that stands where a table is needed.
func setPath(m map[string]any, path []string, value any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// getPath reads the value at path, if any.
func getPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// mergeInto merges src over dst: tables merge key by key, everything else
// (arrays included) is replaced. src's tables are copied, never shared.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			dv, ok := dst[k].(map[string]any)
			if !ok {
				dv = map[string]any{}
				dst[k] = dv
			}
			mergeInto(dv, sv)
			continue
		}
		dst[k] = v
	}
}

// fromJSONValue converts a value decoded from JSON into the TOML tree's
// types: whole numbers become integers (JSON has only float64), objects
// tables, arrays arrays.
func fromJSONValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := fromJSONValue(e)
			if err != nil {
				return nil, err
			}
			if c == nil {
				return nil, fmt.Errorf("arrays cannot hold null")
			}
			out[i] = c
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := fromJSONValue(e)
			if err != nil {
				return nil, err
			}
			if c != nil {
				out[k] = c
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}
