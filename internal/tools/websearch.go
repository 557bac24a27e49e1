package tools

// WebSearchSpec is the Responses API's hosted web_search tool as Codex 0.169 sends it
// (../shared/reference/codex-0.169-observed/review-and-web-search.md §1), or nil when mode
// turns it off. mode is the config's web_search ("" means cached); under danger-full-access a
// cached search is upgraded to live. toolType is the catalog's web_search_tool_type.
func WebSearchSpec(mode string, dangerFullAccess bool, toolType string) Spec {
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
	return Spec(s + `,"search_content_types":` + types + `}`)
}
