package appserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// Results and notifications built on the generated types carry their members in the order
// Codex declares them, which is the order Codex 0.169 writes them (these bytes are its answers,
// recorded from the reference binary), not an alphabetical order.
func TestGeneratedTypesWriteCodexFieldOrder(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.server())

	var profiles json.RawMessage
	cl.call("permissionProfile/list", map[string]any{}, &profiles)
	if want := `{"data":[{"id":":read-only","description":null,"allowed":true},`; !strings.HasPrefix(string(profiles), want) {
		t.Errorf("permissionProfile/list = %s, want it to begin %s", profiles, want)
	}

	cl.call("windowsSandbox/setupStart", map[string]any{"mode": "unelevated"}, nil)
	ns := cl.until("windowsSandbox/setupCompleted")
	got := string(ns[len(ns)-1].Params)
	if want := `{"mode":"unelevated","success":false,"error":`; !strings.HasPrefix(got, want) {
		t.Errorf("windowsSandbox/setupCompleted params = %s, want them to begin %s", got, want)
	}
}

// A request whose schema params are not optional needs them, as Codex 0.169 answers (these
// methods accepted a request without params before they were generated from the schema).
func TestGeneratedAPIRequiresParamsTheSchemaRequires(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.server())
	for _, m := range []string{"app/list", "hooks/list", "modelProvider/capabilities/read", "permissionProfile/list"} {
		if e := cl.callErr(m, nil); e.Code != -32600 || e.Message != "Invalid request: missing field `params`" {
			t.Errorf("%s without params = %d %q, want Codex's missing params", m, e.Code, e.Message)
		}
	}
}
