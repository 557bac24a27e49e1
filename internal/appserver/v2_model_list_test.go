package appserver_test

import (
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// model/list follows the configured provider: a provider other than OpenAI lists what it
// serves (the configured model first and default), with the catalog's metadata when known.
func TestModelListFollowsProvider(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	w.Model.SetModels("local-coder", "gpt-5.5")
	cl := w.connect(w.Srv)
	var list struct {
		Data []map[string]any `json:"data"`
	}
	cl.call("model/list", map[string]any{}, &list)
	if len(list.Data) != 2 || list.Data[0]["id"] != "gpt-5.5" || list.Data[0]["isDefault"] != true || list.Data[1]["id"] != "local-coder" {
		t.Errorf("model/list = %v", list.Data)
	}
}
