package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// model/list answers Codex 0.169's catalog: the same models in the same order with the same
// picker metadata (descriptions, upgrades and their migration notes, availability notices,
// specialties, multi-agent versions, service and speed tiers). Codex's exact answers are in
// modelListGolden; with the reference installed, GOCODEX_RECORD_MODEL_LIST=1 rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_MODEL_LIST=1 \
//	  go test ./e2e -run TestRecordModelListReference -count=1
const modelListGolden = "testdata/codex-0.169-model-list.json"

var modelListParams = map[string]map[string]any{
	"listed":         {},
	"hidden too":     {"includeHidden": true},
	"second of page": {"limit": 1, "cursor": "1"},
}

// modelListAnswers are bin's answers to modelListParams (the configured provider is a
// scripted server, so both list the bundled catalog).
func modelListAnswers(t *testing.T, bin string) map[string]json.RawMessage {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: "chatgpt_base_url = \"" + offlineBackend + "\""})
	c, stop := e.startAppServerOf(bin)
	defer stop()
	out := map[string]json.RawMessage{}
	for name, p := range modelListParams {
		raw, em := c.call("model/list", p)
		if em != nil {
			t.Fatalf("%s: model/list %v: %d %s", bin, p, em.Error.Code, em.Error.Message)
		}
		out[name] = raw
	}
	return out
}

func TestRecordModelListReference(t *testing.T) {
	ref := referenceBinary(t)
	if os.Getenv("GOCODEX_RECORD_MODEL_LIST") == "" {
		t.Skip("set GOCODEX_RECORD_MODEL_LIST=1 to rewrite " + modelListGolden)
	}
	b, err := json.MarshalIndent(modelListAnswers(t, ref), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(modelListGolden, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestModelListMatchesReference(t *testing.T) {
	data, err := os.ReadFile(modelListGolden)
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]any
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	decode := func(m map[string]json.RawMessage) map[string]any {
		out := map[string]any{}
		for k, raw := range m {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			out[k] = v
		}
		return out
	}
	ours := decode(modelListAnswers(t, binary))
	if diff := cmp.Diff(golden, ours); diff != "" {
		t.Errorf("model/list (-codex 0.169 +ours):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(decode(modelListAnswers(t, ref)), ours); diff != "" {
			t.Errorf("model/list (-live codex +ours):\n%s", diff)
		}
	}
}
