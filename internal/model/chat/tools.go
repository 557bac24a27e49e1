package chat

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// maxToolName is the longest function name the Chat Completions API accepts.
const maxToolName = 64

// toolSet is Prompt.Tools translated to Chat Completions functions, with what the reply
// decoder needs to turn a call back into the item the engine expects.
type toolSet struct {
	specs []json.RawMessage
	// custom names the freeform tools offered as a function taking `input`.
	custom map[string]bool
	// namespaced maps a flattened function name back to its namespace and tool name.
	namespaced map[string]nsTool
	// dropped lists the tool types the chat wire cannot send, in first-seen order.
	dropped []string
}

type nsTool struct{ namespace, name string }

// responsesTool is the part of a Responses tool spec the translation reads.
type responsesTool struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Strict      *bool             `json:"strict"`
	Parameters  json.RawMessage   `json:"parameters"`
	Format      *customFormat     `json:"format"`
	Tools       []json.RawMessage `json:"tools"`
}

type customFormat struct {
	Type       string `json:"type"`
	Syntax     string `json:"syntax"`
	Definition string `json:"definition"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

// emptyParameters is sent for a function declared without a schema.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// translateTools maps the wire-form Responses specs to chat functions: function tools as
// they are, custom (freeform) tools as a function with one string parameter `input`, the
// functions of a namespace (MCP servers) flattened to `<namespace>__<tool>`. Other types
// (web_search, local_shell, ...) have no chat form and are listed in dropped.
func translateTools(specs []json.RawMessage) (*toolSet, error) {
	ts := &toolSet{custom: map[string]bool{}, namespaced: map[string]nsTool{}}
	seen := map[string]bool{}
	for i, raw := range specs {
		var t responsesTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tool %d: %w", i, err)
		}
		switch t.Type {
		case "function":
			if err := ts.addFunction(t, t.Name); err != nil {
				return nil, err
			}
		case "custom":
			if err := ts.addCustom(t); err != nil {
				return nil, err
			}
		case "namespace":
			for j, inner := range t.Tools {
				var f responsesTool
				if err := json.Unmarshal(inner, &f); err != nil {
					return nil, fmt.Errorf("tool %d (namespace %s) function %d: %w", i, t.Name, j, err)
				}
				if f.Type != "function" {
					ts.drop(t.Type+"/"+f.Type, seen)
					continue
				}
				flat := flatName(t.Name, f.Name)
				ts.namespaced[flat] = nsTool{namespace: t.Name, name: f.Name}
				if err := ts.addFunction(f, flat); err != nil {
					return nil, err
				}
			}
		default:
			ts.drop(t.Type, seen)
		}
	}
	return ts, nil
}

func (ts *toolSet) drop(typ string, seen map[string]bool) {
	if !seen[typ] {
		seen[typ] = true
		ts.dropped = append(ts.dropped, typ)
	}
}

func (ts *toolSet) addFunction(t responsesTool, name string) error {
	if name == "" {
		return fmt.Errorf("function tool without a name")
	}
	params := t.Parameters
	if len(params) == 0 || bytes.Equal(params, []byte("null")) {
		params = emptyParameters
	}
	return ts.add(chatTool{Type: "function", Function: chatFunction{Name: name, Description: t.Description, Parameters: params, Strict: t.Strict}})
}

// addCustom offers a freeform tool as a function whose single parameter carries the text the
// model would have written freely; the grammar, when there is one, goes into the description.
func (ts *toolSet) addCustom(t responsesTool) error {
	if t.Name == "" {
		return fmt.Errorf("custom tool without a name")
	}
	desc := withoutFreeformNote(t.Description)
	if desc != "" {
		desc += "\n\n"
	}
	desc += "Pass the whole input as the string parameter `input`."
	if t.Format != nil && t.Format.Definition != "" {
		desc += " It must match this " + t.Format.Syntax + " " + t.Format.Type + ":\n" + t.Format.Definition
	}
	ts.custom[t.Name] = true
	return ts.add(chatTool{Type: "function", Function: chatFunction{Name: t.Name, Description: desc, Parameters: inputParameters}})
}

var inputParameters = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The entire input of the tool, as raw text."}},"required":["input"],"additionalProperties":false}`)

func (ts *toolSet) add(t chatTool) error {
	b, err := marshalNoEscape(t)
	if err != nil {
		return fmt.Errorf("tool %s: %w", t.Function.Name, err)
	}
	ts.specs = append(ts.specs, b)
	return nil
}

// flatName joins a namespace and a tool name the way the chat wire offers it, kept within
// the API's 64 characters by a hash suffix (the same function names a call in the history).
func flatName(namespace, name string) string {
	full := namespace + "__" + name
	if len(full) <= maxToolName {
		return full
	}
	sum := sha1.Sum([]byte(full))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return full[:maxToolName-len(suffix)] + suffix
}

// marshalNoEscape encodes v without HTML escaping (descriptions keep their `<` and `&`).
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// withoutFreeformNote drops the sentence telling the model not to wrap its input in JSON,
// which is wrong once the tool is a function.
func withoutFreeformNote(desc string) string {
	i := strings.Index(desc, "This is a FREEFORM tool")
	if i < 0 {
		return desc
	}
	end := len(desc)
	if j := strings.Index(desc[i:], ". "); j >= 0 {
		end = i + j + 2
	} else if j := strings.IndexByte(desc[i:], '.'); j >= 0 {
		end = i + j + 1
	}
	return strings.TrimSpace(desc[:i] + desc[end:])
}
