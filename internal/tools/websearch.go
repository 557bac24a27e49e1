package tools

import (
	"encoding/json"
	"github.com/gocodex/gocodex/tool"
	"strings"
)

// WebSearchSpec is the Responses API's hosted web_search tool as Codex 0.169 sends it
// (../shared/reference/codex-0.169-observed/review-and-web-search.md §1), or nil when mode
// turns it off. mode is the config's web_search ("" means cached); under danger-full-access a
// cached search is upgraded to live. toolType is the catalog's web_search_tool_type.
//
// opts is the [tools.web_search] table: allowed_domains becomes filters, location
// user_location and context_size search_context_size, in Codex's key order.
func WebSearchSpec(mode string, dangerFullAccess bool, toolType string, opts map[string]any) tool.Spec {
	external, indexed := false, false
	switch mode {
	case "disabled":
		return nil
	case "live":
		external = true
	case "indexed":
		external, indexed = true, true
	default: // "cached" or unset
		external = dangerFullAccess
	}
	types := `["text"]`
	if toolType == "text_and_image" {
		types = `["text","image"]`
	}
	s := `{"type":"web_search","external_web_access":`
	if external {
		s += "true"
	} else {
		s += "false"
	}
	if indexed {
		s += `,"indexed_web_access":true`
	}
	s += webSearchOptions(opts)
	return tool.Spec(s + `,"search_content_types":` + types + `}`)
}

// webSearchOptions renders the [tools.web_search] table's members for the tool entry.
func webSearchOptions(opts map[string]any) string {
	var s string
	if domains, ok := opts["allowed_domains"].([]any); ok && len(domains) > 0 {
		b, _ := json.Marshal(map[string]any{"allowed_domains": domains})
		s += `,"filters":` + string(b)
	}
	if loc, ok := opts["location"].(map[string]any); ok && len(loc) > 0 {
		var w objectJSON
		w.add("type", "approximate")
		for _, k := range []string{"country", "region", "city", "timezone"} {
			if v, ok := loc[k].(string); ok && v != "" {
				w.add(k, v)
			}
		}
		s += `,"user_location":` + w.String()
	}
	if size, ok := opts["context_size"].(string); ok && size != "" {
		b, _ := json.Marshal(size)
		s += `,"search_context_size":` + string(b)
	}
	return s
}

// objectJSON writes a JSON object of strings in insertion order.
type objectJSON struct{ b strings.Builder }

func (o *objectJSON) add(k, v string) {
	if o.b.Len() == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	vb, _ := json.Marshal(v)
	o.b.Write(kb)
	o.b.WriteByte(':')
	o.b.Write(vb)
}

func (o *objectJSON) String() string { return o.b.String() + "}" }
