package fleet

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// ConfigArgs are a task's config overrides as -c key=value arguments (values in TOML, as
// -c parses them), in key order.
func ConfigArgs(t Task) ([]string, error) {
	keys := make([]string, 0, len(t.Config))
	for k := range t.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v, err := tomlValue(t.Config[k])
		if err != nil {
			return nil, fmt.Errorf("task %q: config %q: %w", t.ID, k, err)
		}
		out = append(out, "-c", k+"="+v)
	}
	return out, nil
}

// tomlValue spells a JSON value as a TOML value: strings, numbers, booleans and arrays of
// them (JSON's spelling of those is TOML's).
func tomlValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x), nil
	case bool, float64, json.Number:
		b, err := json.Marshal(x)
		return string(b), err
	case []any:
		s := "["
		for i, e := range x {
			ev, err := tomlValue(e)
			if err != nil {
				return "", err
			}
			if i > 0 {
				s += ", "
			}
			s += ev
		}
		return s + "]", nil
	default:
		return "", fmt.Errorf("a value must be a string, number, boolean or array, not %T (use dotted keys for tables)", v)
	}
}
