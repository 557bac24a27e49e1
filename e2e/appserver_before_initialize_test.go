package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Before initialize, Codex 0.169 decodes a request's params first: params that do not fit
// the method get the decode error (-32600 "Invalid request: …"), the others "Not
// initialized". Codex's answers are in beforeInitGolden; with the reference installed,
// GOCODEX_RECORD_BEFORE_INIT=1 rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_BEFORE_INIT=1 \
//	  go test ./e2e -run TestRecordBeforeInitializeReference -count=1
const beforeInitGolden = "testdata/codex-0.169-before-initialize.json"

// beforeInitRequests are sent, in order, to an app-server nobody initialized; the last
// initializes it, and the connection goes on.
var beforeInitRequests = []string{
	`{"id":1,"method":"thread/list","params":{"limit":"x"}}`,
	`{"id":2,"method":"thread/list","params":{}}`,
	`{"id":3,"method":"thread/start"}`,
	`{"id":4,"method":"thread/read","params":{}}`,
	`{"id":5,"method":"config/read"}`,
	`{"id":6,"method":"thread/read","params":{"threadId":"nope"}}`,
	`{"id":7,"method":"model/list","params":null}`,
	`{"id":8,"method":"command/exec","params":{"command":[]}}`,
	`{"id":9,"method":"thread/list","params":{"unknownField":1}}`,
	`{"id":10,"method":"fuzzyFileSearch","params":{}}`,
	`{"id":11,"method":"fs/readFile","params":{"path":5}}`,
	`{"id":12,"method":"turn/start","params":{"threadId":"t","input":"hi"}}`,
	`{"id":13,"method":"account/read"}`,
}

// beforeInitAnswers are bin's answers, one per request (the error, or "ok" when it
// answered), then the initialize answer's outcome and one request after it.
func beforeInitAnswers(t *testing.T, bin string) []string {
	e := newEnv(t)
	saved := binary
	binary = bin
	r := e.startRawAppServer()
	binary = saved
	var out []string
	answer := func(id any) string {
		res := r.response(id)
		if res["error"] != nil {
			b, _ := json.Marshal(res["error"])
			return string(b)
		}
		return "ok"
	}
	for i, line := range beforeInitRequests {
		r.send(line)
		out = append(out, line+" -> "+answer(float64(i+1)))
	}
	r.send(`{"id":"init","method":"initialize","params":{"clientInfo":{"name":"e2e","version":"1.0"}}}`)
	out = append(out, "initialize -> "+answer("init"))
	r.send(`{"id":"after","method":"thread/list","params":{}}`)
	return append(out, "thread/list after -> "+answer("after"))
}

func TestRecordBeforeInitializeReference(t *testing.T) {
	ref := referenceBinary(t)
	if os.Getenv("GOCODEX_RECORD_BEFORE_INIT") == "" {
		t.Skip("set GOCODEX_RECORD_BEFORE_INIT=1 to rewrite " + beforeInitGolden)
	}
	b, err := json.MarshalIndent(beforeInitAnswers(t, ref), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(beforeInitGolden, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBeforeInitializeMatchesReference(t *testing.T) {
	data, err := os.ReadFile(beforeInitGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	ours := beforeInitAnswers(t, binary)
	if diff := cmp.Diff(want, ours); diff != "" {
		t.Errorf("(-codex 0.169 +ours):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(beforeInitAnswers(t, ref), ours); diff != "" {
			t.Errorf("(-live codex +ours):\n%s", diff)
		}
	}
}
