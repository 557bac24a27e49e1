package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gocodex models lists what the provider serves with the catalog's metadata: a catalog model
// keeps its window, an unknown one gets the fallback and is marked as not in the catalog.
func TestModelsListsProviderModels(t *testing.T) {
	e := newEnv(t)
	e.Model.SetModels("gpt-5.5", "my-local-model")
	r := e.run("", "models", "--json")
	if r.Code != 0 {
		t.Fatalf("models: %+v", r)
	}
	var rows []struct {
		Slug      string `json:"slug"`
		Context   int64  `json:"context_window"`
		Served    bool   `json:"served"`
		InCatalog bool   `json:"in_catalog"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Slug] = strings.Join([]string{boolWord(row.Served), boolWord(row.InCatalog)}, ",")
	}
	if got["gpt-5.5"] != "true,true" || got["my-local-model"] != "true,false" || len(rows) != 2 {
		t.Errorf("rows = %+v", rows)
	}
	reqs := e.Model.AllRequests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("requests = %+v", reqs)
	}
	// The table form, and a provider that cannot be asked: a warning, the catalog and exit 0.
	if r := e.run("", "models"); !strings.Contains(r.Stdout, "my-local-model") || !strings.Contains(r.Stdout, "MODEL") {
		t.Errorf("table: %+v", r)
	}
	cfg, _ := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
	os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(strings.Replace(string(cfg), e.Model.URL(), "http://127.0.0.1:1", 1)), 0o600)
	if r := e.run("", "models"); r.Code != 0 || !strings.Contains(r.Stderr, "could not list the models") || !strings.Contains(r.Stdout, "gpt-5.5") {
		t.Errorf("unreachable provider: %+v", r)
	}
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// A model the catalog does not know runs with the fallback metadata and a warning.
func TestUnknownModelWarns(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("ok"))
	r := e.run("", "exec", "--skip-git-repo-check", "-m", "my-local-model", "hi")
	if r.Code != 0 || !strings.Contains(r.Stderr, "warning: model `my-local-model` is not in the bundled catalog") {
		t.Errorf("exec: %+v", r)
	}
	e.Model.Enqueue(answer("ok"))
	if r := e.run("", "exec", "--skip-git-repo-check", "-m", "gpt-5.5", "hi"); strings.Contains(r.Stderr, "bundled catalog") {
		t.Errorf("a catalog model warned: %s", r.Stderr)
	}
}
