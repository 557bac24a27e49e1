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
