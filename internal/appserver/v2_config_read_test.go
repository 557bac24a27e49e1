package appserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// Values of the wrong type (a config that does not load in Codex) are shown as they are,
// without a panic; every known key is there once.
func TestConfigReadValueOddTypes(t *testing.T) {
	eff := map[string]any{"history": "x", "features": []any{1}, "mcp_servers": map[string]any{"a": "b", "c": map[string]any{}},
		"model_providers": 3, "profiles": map[string]any{"p": nil}, "sandbox_workspace_write": true, "gocodex_only": "kept"}
	b, err := json.Marshal(configReadValue(eff))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if len(m) != len(configReadKeys)+1 {
		t.Errorf("%d keys, want %d", len(m), len(configReadKeys)+1)
	}
	for k, want := range map[string]string{"history": `"x"`, "features": `[1]`, "model_providers": `3`, "sandbox_workspace_write": `true`, "gocodex_only": `"kept"`,
		"mcp_servers": `{"a":"b","c":{"url":null,"environment_id":"local","enabled":true,"tool_timeout_sec":null}}`} {
		if got := string(m[k]); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	if !strings.HasPrefix(string(b), `{"model":null,"review_model":null,`) {
		t.Errorf("answer starts %.60s", b)
	}
}
