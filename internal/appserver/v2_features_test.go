package appserver_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// experimentalFeature/list answers what Codex 0.171 answered (recorded in testdata with
// plugins off, as the testkit configuration has, and memories on, switched here at run time).
func TestExperimentalFeatureListMatchesCodex(t *testing.T) {
	raw, err := os.ReadFile("testdata/codex-0.171-experimental-feature-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	cl.call("experimentalFeature/enablement/set", map[string]any{"enablement": map[string]bool{"memories": true}}, nil)
	var got map[string]any
	cl.call("experimentalFeature/list", map[string]any{}, &got)
	if !reflect.DeepEqual(got, want) {
		gd, wd := got["data"].([]any), want["data"].([]any)
		for i := range min(len(gd), len(wd)) {
			if !reflect.DeepEqual(gd[i], wd[i]) {
				t.Errorf("row %d: got %v, want %v", i, gd[i], wd[i])
			}
		}
		t.Fatalf("got %d rows (next %v), want %d", len(gd), got["nextCursor"], len(wd))
	}

	var page map[string]any
	cl.call("experimentalFeature/list", map[string]any{"limit": 3}, &page)
	if n := len(page["data"].([]any)); n != 3 || page["nextCursor"] != "3" {
		t.Fatalf("limit 3: %d rows, next %v", n, page["nextCursor"])
	}
	cl.call("experimentalFeature/list", map[string]any{"cursor": "222"}, &page)
	if n := len(page["data"].([]any)); n != 2 || page["nextCursor"] != nil {
		t.Fatalf("cursor 222: %d rows, next %v", n, page["nextCursor"])
	}
	if e := cl.callErr("experimentalFeature/list", map[string]any{"cursor": "x"}); e == nil || e.Message != "invalid cursor: x" {
		t.Fatalf("bad cursor: %v", e)
	}
	if e := cl.callErr("experimentalFeature/list", map[string]any{"threadId": "00000000-0000-0000-0000-000000000000"}); e == nil {
		t.Fatal("unknown thread id accepted")
	}
}

// enablement/set changes only Codex's runtime-settable flags, answers those, shows them in
// the listing, and says when gocodex does not implement one switched on.
func TestExperimentalFeatureEnablementSet(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var res struct {
		Enablement map[string]bool `json:"enablement"`
	}
	cl.call("experimentalFeature/enablement/set", map[string]any{"enablement": map[string]bool{
		"memories": true, "hooks": false, "bogus": true, "tool_suggest": false}}, &res)
	if want := map[string]bool{"memories": true, "tool_suggest": false}; !reflect.DeepEqual(res.Enablement, want) {
		t.Fatalf("enablement = %v, want %v", res.Enablement, want)
	}
	warned := false
	for _, n := range cl.until("configWarning") {
		if strings.Contains(string(n.Params), "feature `memories` is turned on but is not supported by gocodex") {
			warned = true
		}
	}
	if !warned {
		t.Error("no configWarning for memories")
	}
	var list struct {
		Data []struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
		} `json:"data"`
	}
	cl.call("experimentalFeature/list", map[string]any{}, &list)
	for _, f := range list.Data {
		if (f.Name == "memories" && !f.Enabled) || (f.Name == "tool_suggest" && f.Enabled) || (f.Name == "hooks" && !f.Enabled) {
			t.Errorf("%s enabled = %v after the set", f.Name, f.Enabled)
		}
	}
	if e := cl.callErr("experimentalFeature/enablement/set", map[string]any{}); e == nil || e.Message != "Invalid request: missing field `enablement`" {
		t.Fatalf("missing enablement: %v", e)
	}
}
