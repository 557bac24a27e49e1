package rpcgen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// node is one JSON-schema node, as far as the generator reads it.
type node struct {
	Ref                  string           `json:"$ref"`
	Type                 json.RawMessage  `json:"type"`
	Format               string           `json:"format"`
	Enum                 []any            `json:"enum"`
	Items                *node            `json:"items"`
	Properties           map[string]*node `json:"properties"`
	Required             []string         `json:"required"`
	AdditionalProperties json.RawMessage  `json:"additionalProperties"`
	AnyOf                []*node          `json:"anyOf"`
	OneOf                []*node          `json:"oneOf"`
	AllOf                []*node          `json:"allOf"`
	Description          string           `json:"description"`
	Title                string           `json:"title"`
}

// types lists the node's JSON types ("string", "null", …).
func (n *node) types() []string {
	if len(n.Type) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(n.Type, &many)
	return many
}

// isNull reports whether the node is {"type": "null"}.
func (n *node) isNull() bool {
	t := n.types()
	return len(t) == 1 && t[0] == "null"
}

// method is one client request or server notification of the schema.
type method struct {
	Name     string // "thread/start"
	Params   string // definition name of the params; "" when the method takes none
	Optional bool   // params may be absent or null
	Response string // definition name of the result (requests)
}

// model is the schema's definitions and methods.
type model struct {
	defs          map[string]*node // by definition name (v2 names win over the root's)
	ts            map[string][]byte
	requests      []method
	notifications []method
}

// responseOf names the result of the requests whose params type does not name it
// (XParams → XResponse), as Codex's request table pairs them.
var responseOf = map[string]string{
	"account/gatewayOAuth/cancel":              "GatewayOAuthCancelResponse",
	"config/mcpServer/reload":                  "McpServerRefreshResponse",
	"windowsSandbox/readiness":                 "WindowsSandboxReadinessResponse",
	"account/logout":                           "LogoutAccountResponse",
	"account/securitySetup/read":               "GetAccountSecuritySetupResponse",
	"account/workspaceMessages/read":           "GetWorkspaceMessagesResponse",
	"externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
	"config/value/write":                       "ConfigWriteResponse",
	"config/batchWrite":                        "ConfigWriteResponse",
	"configRequirements/read":                  "ConfigRequirementsReadResponse",
	"modelProvider/default/set":                "ConfigWriteResponse", // Codex 0.171 answers a config write
}

func loadModel(s *Schema) (*model, error) {
	m := &model{ts: s.TS}
	stable, err := readDefs(s.Bundle)
	if err != nil {
		return nil, err
	}
	if m.defs, err = readDefs(s.Types); err != nil {
		return nil, err
	}
	// The requests are the stable schema's; their types (and the notifications) the fuller one's.
	m.defs["ClientRequest"] = stable["ClientRequest"]
	if m.requests, err = m.methods("ClientRequest", true); err != nil {
		return nil, err
	}
	if m.notifications, err = m.methods("ServerNotification", false); err != nil {
		return nil, err
	}
	return m, nil
}

// readDefs reads a bundle's definitions, the v2 ones by their own names.
func readDefs(data []byte) (map[string]*node, error) {
	var bundle struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(data, &bundle); err != nil {
		return nil, fmt.Errorf("schema bundle: %w", err)
	}
	m := &model{defs: map[string]*node{}}
	for name, raw := range bundle.Definitions {
		if name == "v2" {
			continue
		}
		var n node
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, fmt.Errorf("definition %s: %w", name, err)
		}
		m.defs[name] = &n
	}
	if raw, ok := bundle.Definitions["v2"]; ok {
		var v2 map[string]*node
		if err := json.Unmarshal(raw, &v2); err != nil {
			return nil, fmt.Errorf("v2 definitions: %w", err)
		}
		for name, n := range v2 {
			m.defs[name] = n
		}
	}
	return m.defs, nil
}

// methods reads the union of requests or notifications named union.
func (m *model) methods(union string, requests bool) ([]method, error) {
	u := m.defs[union]
	if u == nil {
		return nil, fmt.Errorf("schema has no %s", union)
	}
	var out []method
	for _, v := range u.OneOf {
		mn := v.Properties["method"]
		if mn == nil || len(mn.Enum) != 1 {
			return nil, fmt.Errorf("%s: a variant without one method name", union)
		}
		name, _ := mn.Enum[0].(string)
		me := method{Name: name}
		if p := v.Properties["params"]; p != nil {
			switch {
			case p.Ref != "":
				me.Params = refName(p.Ref)
			case len(p.AnyOf) == 2 && p.AnyOf[1].isNull() && p.AnyOf[0].Ref != "":
				me.Params, me.Optional = refName(p.AnyOf[0].Ref), true
			case p.isNull():
				me.Optional = true
			default:
				return nil, fmt.Errorf("%s: params of unknown form", name)
			}
		} else {
			me.Optional = true
		}
		if requests {
			me.Response = responseOf[name]
			if me.Response == "" && strings.HasSuffix(me.Params, "Params") {
				me.Response = strings.TrimSuffix(me.Params, "Params") + "Response"
			}
			if m.defs[me.Response] == nil {
				return nil, fmt.Errorf("%s: no response type (add it to responseOf)", name)
			}
		}
		out = append(out, me)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// tsField is one member of a TypeScript object type.
type tsField struct {
	Name     string
	Optional bool // `name?:`: Codex leaves the field out when it has no value
}

var tsComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

// tsFields reads the members of the object type name declares, in declaration order (nil
// when the type is not a plain object literal).
func (m *model) tsFields(name string) []tsField {
	src := m.ts[name]
	if src == nil {
		return nil
	}
	text := tsComment.ReplaceAllString(string(src), "")
	decl := "export type " + name + " = "
	i := strings.Index(text, decl)
	if i < 0 {
		return nil
	}
	body := strings.TrimSpace(text[i+len(decl):])
	body = strings.TrimSuffix(body, ";")
	if !strings.HasPrefix(body, "{") || matchingBrace(body) != len(body)-1 {
		return nil
	}
	var out []tsField
	for _, member := range splitTopLevel(body[1:len(body)-1], ',') {
		member = strings.TrimSpace(member)
		if member == "" {
			continue
		}
		colon := strings.Index(member, ":")
		if colon < 0 {
			return nil
		}
		key := strings.TrimSpace(member[:colon])
		f := tsField{}
		if strings.HasSuffix(key, "?") {
			f.Optional = true
			key = strings.TrimSuffix(key, "?")
		}
		f.Name = strings.Trim(key, `"`)
		out = append(out, f)
	}
	return out
}

// matchingBrace is the index of the bracket closing the one s starts with.
func matchingBrace(s string) int {
	depth := 0
	for i, r := range s {
		switch r {
		case '{', '[', '(', '<':
			depth++
		case '}', ']', ')', '>':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits s at sep outside brackets and strings.
func splitTopLevel(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '{' || r == '[' || r == '(' || r == '<':
			depth++
		case r == '}' || r == ']' || r == ')' || r == '>':
			depth--
		case r == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// UnmarshalJSON reads a node; the schemas `true` and `false` are the empty node.
func (n *node) UnmarshalJSON(b []byte) error {
	if s := strings.TrimSpace(string(b)); s == "true" || s == "false" {
		*n = node{}
		return nil
	}
	type plain node
	return json.Unmarshal(b, (*plain)(n))
}
