package appserver

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/gocodex/gocodex/internal/features"
)

// orderedObject is a JSON object written with its keys in the given order.
type orderedObject []orderedField

type orderedField struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// configReadTables build the value of the keys whose tables Codex fills out (set: the key
// is in the config).
var configReadTables = map[string]func(v any, set bool) any{
	"sandbox_workspace_write": func(v any, set bool) any {
		if !set {
			return nil
		}
		return fromTemplate(workspaceWriteTemplate, v)
	},
	"history":                  func(v any, _ bool) any { return fromTemplate(historyTemplate, v) },
	"shell_environment_policy": func(v any, _ bool) any { return fromTemplate(shellEnvironmentTemplate, v) },
	"features":                 featuresValue,
	"mcp_servers":              func(v any, _ bool) any { return eachEntry(v, mcpServerValue) },
	"model_providers": func(v any, _ bool) any {
		return eachEntry(v, func(p any) any { return fromTemplate(providerTemplate, p) })
	},
	"profiles": func(v any, _ bool) any {
		return eachEntry(v, func(p any) any { return fromTemplate(profileTemplate, p) })
	},
}

// configReadValue is the effective config as config/read shows it: every key Codex 0.169
// knows in its order, the config's value or what Codex shows while it is unset, then the
// config's other keys, sorted.
func configReadValue(effective map[string]any) orderedObject {
	out := make(orderedObject, 0, len(configReadKeys)+len(effective))
	known := make(map[string]bool, len(configReadKeys))
	for _, k := range configReadKeys {
		known[k.name] = true
		v, set := effective[k.name]
		switch {
		case configReadTables[k.name] != nil:
			v = configReadTables[k.name](v, set)
		case !set:
			v = json.RawMessage(k.unset)
		}
		out = append(out, orderedField{k.name, v})
	}
	return append(out, otherKeys(effective, known)...)
}

// fromTemplate is a table with every key of the template (the table's value or the
// template's) and then the table's other keys, sorted. A value that is not a table is
// left as it is.
func fromTemplate(template []configReadKey, v any) any {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return v
	}
	out := make(orderedObject, 0, len(template)+len(m))
	known := make(map[string]bool, len(template))
	for _, k := range template {
		known[k.name] = true
		if val, set := m[k.name]; set {
			out = append(out, orderedField{k.name, val})
		} else {
			out = append(out, orderedField{k.name, json.RawMessage(k.unset)})
		}
	}
	return append(out, otherKeys(m, known)...)
}

// otherKeys are m's keys that known lacks, sorted.
func otherKeys(m map[string]any, known map[string]bool) orderedObject {
	var names []string
	for k := range m {
		if !known[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := make(orderedObject, 0, len(names))
	for _, k := range names {
		out = append(out, orderedField{k, m[k]})
	}
	return out
}

// eachEntry applies f to each entry of a table of tables ({} when unset).
func eachEntry(v any, f func(any) any) any {
	if v == nil {
		return map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = f(e)
	}
	return out
}

// mcpServerValue is an MCP server's table as Codex shows it: its command and arguments
// (none: []) or its URL, its other keys, then where it runs, whether it is on and its tool
// timeout.
func mcpServerValue(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	var head []configReadKey
	if _, stdio := m["command"]; stdio {
		head = []configReadKey{{"command", `null`}, {"args", `[]`}}
	} else {
		head = []configReadKey{{"url", `null`}}
	}
	tail := []configReadKey{{"environment_id", `"local"`}, {"enabled", `true`}, {"tool_timeout_sec", `null`}}
	known := map[string]bool{}
	for _, k := range append(append([]configReadKey(nil), head...), tail...) {
		known[k.name] = true
	}
	out := fromTemplate(head, pick(m, head)).(orderedObject)
	out = append(out, otherKeys(m, known)...)
	return append(out, fromTemplate(tail, pick(m, tail)).(orderedObject)...)
}

// pick is the part of m the template names.
func pick(m map[string]any, template []configReadKey) map[string]any {
	out := map[string]any{}
	for _, k := range template {
		if v, ok := m[k.name]; ok {
			out[k.name] = v
		}
	}
	return out
}

// featuresValue is the features table as Codex shows it: the flags a client may set at
// run time with their defaults, and, once the config has a [features] table, its flags
// and network_proxy (null unless set); keys sorted.
func featuresValue(v any, set bool) any {
	out := map[string]any{}
	for _, f := range features.All() {
		if f.RuntimeSettable {
			out[f.Name] = f.Default
		}
	}
	if m, ok := v.(map[string]any); ok && set {
		out["network_proxy"] = nil
		for k, val := range m {
			out[k] = val
		}
	} else if set {
		return v
	}
	return out // encoding/json sorts a map's keys
}

// flatKeys lists the dotted paths of a TOML tree's leaves, arrays by index, as Codex's
// origins name them.
func flatKeys(prefix string, v any) []string {
	var out []string
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 && prefix != "" {
			return []string{prefix}
		}
		for k, sub := range x {
			out = append(out, flatKeys(join(k), sub)...)
		}
	case []any:
		if len(x) == 0 {
			return []string{prefix}
		}
		for i, sub := range x {
			out = append(out, flatKeys(join(strconv.Itoa(i)), sub)...)
		}
	default:
		return []string{prefix}
	}
	sort.Strings(out)
	return out
}
