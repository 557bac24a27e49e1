package tools

import "testing"

// The entries Codex 0.169 was seen sending (review-and-web-search.md §1).
func TestWebSearchSpecMatchesCodex(t *testing.T) {
	for _, tt := range []struct {
		mode   string
		danger bool
		want   string
	}{
		{"live", false, `{"type":"web_search","external_web_access":true,"search_content_types":["text","image"]}`},
		{"cached", false, `{"type":"web_search","external_web_access":false,"search_content_types":["text","image"]}`},
		{"", false, `{"type":"web_search","external_web_access":false,"search_content_types":["text","image"]}`},
		{"cached", true, `{"type":"web_search","external_web_access":true,"search_content_types":["text","image"]}`},
		{"", true, `{"type":"web_search","external_web_access":true,"search_content_types":["text","image"]}`},
		{"indexed", false, `{"type":"web_search","external_web_access":true,"indexed_web_access":true,"search_content_types":["text","image"]}`},
		{"disabled", true, ``},
	} {
		if got := string(WebSearchSpec(tt.mode, tt.danger, "text_and_image", nil)); got != tt.want {
			t.Errorf("%q danger=%v: %s, want %s", tt.mode, tt.danger, got, tt.want)
		}
	}
}

// The [tools.web_search] table, as Codex 0.169 was seen sending it with live search.
func TestWebSearchSpecOptions(t *testing.T) {
	opts := map[string]any{"context_size": "high", "allowed_domains": []any{"example.com"},
		"location": map[string]any{"country": "US", "city": "Boston"}}
	want := `{"type":"web_search","external_web_access":true,"filters":{"allowed_domains":["example.com"]},` +
		`"user_location":{"type":"approximate","country":"US","city":"Boston"},"search_context_size":"high","search_content_types":["text","image"]}`
	if got := string(WebSearchSpec("live", false, "text_and_image", opts)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
