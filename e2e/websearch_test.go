package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// webSearchEntry runs one exec turn through bin with the given -c overrides and returns the
// web_search entry of the request's tools ("" when there is none) and the tools' last type.
func webSearchEntry(t *testing.T, bin string, args ...string) (entry, last string) {
	e := newEnv(t)
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+t.TempDir())
	e.Model.Enqueue(answer("ok"))
	r := e.runBin(bin, "", append(append([]string{"exec", "--skip-git-repo-check"}, args...), "hi")...)
	if r.Code != 0 {
		t.Fatalf("%s exec: %+v", bin, r)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Tools) == 0 {
		t.Fatalf("tools: %v", err)
	}
	for _, raw := range body.Tools {
		var head struct {
			Type string `json:"type"`
		}
		json.Unmarshal(raw, &head)
		if head.Type == "web_search" {
			entry = string(raw)
		}
		last = head.Type
	}
	return entry, last
}

// The web_search tool entry for each mode and sandbox, as Codex 0.169 sends it (last in
// tools), compared live with the reference where it is installed.
func TestWebSearchToolMatchesCodex(t *testing.T) {
	cases := map[string][]string{
		"live":          {"-s", "read-only", "-c", `web_search="live"`},
		"cached":        {"-s", "read-only", "-c", `web_search="cached"`},
		"unset":         {"-s", "read-only"},
		"unset, danger": {"-s", "danger-full-access"},
		"disabled":      {"-s", "danger-full-access", "-c", `web_search="disabled"`},
		"options": {"-s", "read-only", "-c", `web_search="live"`,
			"-c", `tools.web_search={context_size="high", allowed_domains=["example.com"]}`},
	}
	want := map[string]string{
		"live":          `{"type":"web_search","external_web_access":true,"search_content_types":["text","image"]}`,
		"cached":        `{"type":"web_search","external_web_access":false,"search_content_types":["text","image"]}`,
		"unset":         `{"type":"web_search","external_web_access":false,"search_content_types":["text","image"]}`,
		"unset, danger": `{"type":"web_search","external_web_access":true,"search_content_types":["text","image"]}`,
		"disabled":      ``,
		"options": `{"type":"web_search","external_web_access":true,"filters":{"allowed_domains":["example.com"]},` +
			`"search_context_size":"high","search_content_types":["text","image"]}`,
	}
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for name, args := range cases {
		entry, last := webSearchEntry(t, binary, args...)
		if entry != want[name] || (entry != "" && last != "web_search") {
			t.Errorf("%s: entry %s (last tool %s), want %s", name, entry, last, want[name])
		}
		if ref != "" {
			if refEntry, _ := webSearchEntry(t, ref, args...); refEntry != entry {
				t.Errorf("%s: codex sends %s, gocodex %s", name, refEntry, entry)
			}
		}
	}
}

// webSearchThenAnswer is a turn whose model searched the web (the item as the API streams
// it: added in progress, done with its action) and then answered.
func webSearchThenAnswer() tk.Response {
	started := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "in_progress"}
	done := map[string]any{"type": "web_search_call", "id": "ws_0001", "status": "completed",
		"action": json.RawMessage(`{"type":"search","query":"golang generics"}`)} // in the API's key order
	return tk.SSE(tk.Created(),
		tk.Raw("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started}),
		tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}),
		tk.AssistantMessageStream("msg_1", "Found it."), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))
}

// webSearchCallsSent runs a web search turn through bin, resumes the thread with a second
// prompt and returns the web_search_call items of the resumed request's input, as sent.
func webSearchCallsSent(t *testing.T, bin string) []string {
	e := newEnv(t)
	e.Model.Enqueue(webSearchThenAnswer(), answer("Again."))
	first := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "search")
	if first.Code != 0 {
		t.Fatalf("%s exec: %+v", bin, first)
	}
	id, _ := jsonl(t, first.Stdout)[0]["thread_id"].(string)
	if r := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "resume", id, "again"); r.Code != 0 {
		t.Fatalf("%s exec resume: %+v", bin, r)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%s: %d requests, want 2", bin, len(reqs))
	}
	var body struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, it := range body.Input {
		if strings.Contains(string(it), `"type":"web_search_call"`) {
			calls = append(calls, string(it))
		}
	}
	return calls
}

// A resumed thread sends its web_search_call items back with their ids, as Codex 0.169 does
// (the API rejects the item without one); compared live with the reference where installed.
func TestWebSearchCallKeepsIDOnResume(t *testing.T) {
	want := []string{`{"type":"web_search_call","id":"ws_0001","status":"completed","action":{"type":"search","query":"golang generics"}}`}
	got := webSearchCallsSent(t, binary)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("web_search_call items of the resumed request (-want +got):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(webSearchCallsSent(t, ref), got); diff != "" {
			t.Errorf("web_search_call items (-codex +gocodex):\n%s", diff)
		}
	}
}

// On a wire with no web search tool, asking for web search is a warning, not a silent drop.
func TestWebSearchOnChatWireWarns(t *testing.T) {
	e := newEnv(t)
	chat := tk.NewChatServer(t)
	chat.Enqueue(tk.ChatAnswer("ok", tk.Usage{Input: 1, Output: 1, Total: 2}))
	wireConfig(t, e.CodexHome, "chat", chat.BaseURL())
	e.ExtraEnv = append(e.ExtraEnv, "WIRE_KEY=k")
	r := e.run("", "exec", "--skip-git-repo-check", "-c", `web_search="live"`, "hi")
	if r.Code != 0 || !strings.Contains(r.Stderr, `web_search = "live" has no effect with model provider "scripted"`) {
		t.Errorf("exec: %+v", r)
	}
}

// The TUI's --search turns on live search, as Codex's root --search does.
func TestTUISearchFlag(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(answer("SEARCHED"))
	s := e.startTUI("--search", "-s", "read-only")
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("look it up\r")
	pos = s.screen.waitFor(t, "SEARCHED", pos)
	s.quit(pos)
	if body := string(e.Model.Requests()[0].Body); !strings.Contains(body, `{"type":"web_search","external_web_access":true`) {
		t.Errorf("no live web_search in the request")
	}
}
