package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver/schematest"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The experimental methods, walked from Codex 0.169's experimental ClientRequest schema (the
// methods its stable schema does not have), through the built binary. With experimentalApi
// each answers a result that fits the experimental schema (the session checks it) or
// gocodex's clear -32601 "<method> is not supported by gocodex"; without it, each answers
// Codex's "<method> requires experimentalApi capability". None is "unknown".

// experimentalImplemented are the experimental methods gocodex answers, with valid params
// ("$THREAD" is a loaded thread's id, "$WD" the working directory).
var experimentalImplemented = map[string]map[string]any{
	"collaborationMode/list":               {},
	"mock/experimentalMethod":              {"value": "v"},
	"remoteControl/status/read":            nil,
	"fuzzyFileSearch/sessionStart":         {"sessionId": "s1", "roots": []any{"$WD"}},
	"fuzzyFileSearch/sessionUpdate":        {"sessionId": "s1", "query": "rea"},
	"fuzzyFileSearch/sessionStop":          {"sessionId": "s0"}, // stopping an unknown session is fine, as in Codex
	"thread/backgroundTerminals/clean":     {"threadId": "$THREAD"},
	"thread/backgroundTerminals/list":      {"threadId": "$THREAD"},
	"thread/backgroundTerminals/terminate": {"threadId": "$THREAD", "processId": "999999"},
	"thread/readState/update":              {"threadId": "$THREAD", "expectedRevision": "$THREAD" /* a new thread's revision is its id */, "operation": map[string]any{"type": "read"}},
	"thread/search":                        {"searchTerm": "x"},
	"thread/search/stream":                 {"searchTerm": "x"},
	"thread/search/cancel":                 {"requestId": 1}, // nothing running: acknowledged, as in Codex
	"thread/search/stream/cancel":          {"requestId": 1},
}

func experimentalMethods(t *testing.T) []string {
	stable := schematest.ForTest(t)
	var out []string
	for _, m := range schematest.ForTestExperimental(t).Methods(schematest.ClientRequestParams) {
		if !stable.Known(schematest.ClientRequestParams, m) {
			out = append(out, m)
		}
	}
	if len(out) < 70 {
		t.Fatalf("only %d experimental methods in the schema", len(out))
	}
	return out
}

// experimentalParams fills in the placeholders of a method's params.
func experimentalParams(m map[string]any, thread, wd string) map[string]any {
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		switch v {
		case "$THREAD":
			v = thread
		case "$WD":
			v = wd
		}
		if l, ok := v.([]any); ok && len(l) == 1 && l[0] == "$WD" {
			v = []any{wd}
		}
		out[k] = v
	}
	return out
}

func TestAppServerExperimentalMethods(t *testing.T) {
	e := appServerEnv(t, "never")
	if err := os.WriteFile(filepath.Join(e.Workdir, "README.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	methods := experimentalMethods(t)

	e.capabilities = map[string]any{"experimentalApi": true}
	c, _ := e.startAppServer()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	for _, m := range methods {
		p, implemented := experimentalImplemented[m]
		params := experimentalParams(p, id, e.Workdir)
		if !implemented {
			params = map[string]any{}
		}
		res, rerr := c.call(m, params)
		switch {
		case implemented && rerr != nil:
			t.Errorf("%s: %d %s, want a result", m, rerr.Error.Code, rerr.Error.Message)
		case !implemented && rerr == nil:
			t.Errorf("%s answered %s; add it to experimentalImplemented", m, res)
		case !implemented && (rerr.Error.Code != -32601 || rerr.Error.Message != m+" is not supported by gocodex"):
			t.Errorf("%s: %d %q, want -32601 %q", m, rerr.Error.Code, rerr.Error.Message, m+" is not supported by gocodex")
		}
	}
	if err := c.sess.Err(); err != nil {
		t.Errorf("schema: %v", err)
	}

	e.capabilities = nil
	plain, _ := e.startAppServer()
	for _, m := range methods {
		p, implemented := experimentalImplemented[m]
		params := map[string]any{}
		if implemented {
			params = experimentalParams(p, id, e.Workdir)
		}
		_, rerr := plain.call(m, params)
		if want := m + " requires experimentalApi capability"; rerr == nil || rerr.Error.Code != -32600 || rerr.Error.Message != want {
			t.Errorf("%s without experimentalApi: %+v, want -32600 %q", m, rerr, want)
		}
	}
	// A method no Codex knows stays unknown.
	if _, rerr := plain.call("made/up", map[string]any{}); rerr == nil || !strings.Contains(rerr.Error.Message, "unknown variant `made/up`") {
		t.Errorf("made/up: %+v", rerr)
	}
}

// A command the model left running is listed as Codex 0.169 lists it (observed: the command
// as written, no pid or usage figures), terminated on request (its item completes as failed
// with exit code -1), and gone from the list after.
func TestAppServerBackgroundTerminalsListAndTerminate(t *testing.T) {
	e := appServerEnv(t, "never")
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", `{"cmd":"sleep 30","yield_time_ms":200}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
		answer("left it running"))
	e.capabilities = map[string]any{"experimentalApi": true}
	c, _ := e.startAppServer()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.turn(id, "sleep")
	c.until("turn/completed")
	var list struct {
		Data       []map[string]any `json:"data"`
		NextCursor *string          `json:"nextCursor"`
	}
	c.mustCall("thread/backgroundTerminals/list", map[string]any{"threadId": id}, &list)
	if len(list.Data) != 1 || list.NextCursor != nil {
		t.Fatalf("list = %+v", list)
	}
	got := list.Data[0]
	pid, _ := got["processId"].(string)
	want := map[string]any{"itemId": "call_1", "processId": pid, "command": "sleep 30", "cwd": e.Workdir, "osPid": nil, "cpuPercent": nil, "rssKb": nil}
	if diff := cmp.Diff(want, got); diff != "" || pid == "" {
		t.Errorf("terminal (-want +got):\n%s", diff)
	}
	var term struct {
		Terminated bool `json:"terminated"`
	}
	c.mustCall("thread/backgroundTerminals/terminate", map[string]any{"threadId": id, "processId": pid}, &term)
	if !term.Terminated {
		t.Errorf("terminate answered %+v", term)
	}
	ms := c.until("item/completed")
	if it := params(ms[len(ms)-1])["item"].(map[string]any); it["id"] != "call_1" || it["status"] != "failed" || it["exitCode"] != -1.0 {
		t.Errorf("terminated item = %v", it)
	}
	c.mustCall("thread/backgroundTerminals/list", map[string]any{"threadId": id}, &list)
	if len(list.Data) != 0 {
		t.Errorf("list after terminate = %+v", list.Data)
	}
}
