package chat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// checkGolden compares body, indented, with testdata/name (rewritten with -update).
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, pretty.Bytes()) {
		t.Errorf("request body differs from %s (run with -update to accept):\n%s", path, pretty.Bytes())
	}
}

func text(role, s string) protocol.MessageItem {
	typ := protocol.ContentInputText
	if role == "assistant" {
		typ = protocol.ContentOutputText
	}
	return protocol.MessageItem{Role: role, Content: []protocol.ContentItem{{Type: typ, Text: s}}}
}

func out(callID, s string) protocol.FunctionCallOutputItem {
	return protocol.FunctionCallOutputItem{CallID: callID, Output: protocol.FunctionCallOutputPayload{Content: s}}
}

const patchText = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"

// historyPrompt is a thread with every item kind the chat wire maps.
func historyPrompt() modelstream.Prompt {
	enc := "blob"
	p := prompt()
	p.Instructions = "You are a coding agent."
	p.ParallelToolCalls = true
	p.Reasoning = &modelstream.Reasoning{Effort: "high", Summary: "auto"}
	p.Input = []protocol.ResponseItem{
		text("developer", "<permissions>workspace-write</permissions>"),
		protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{
			{Type: protocol.ContentInputText, Text: "What is in this picture? Then list files."},
			{Type: protocol.ContentInputImage, ImageURL: "data:image/png;base64,iVBORw0KGgo=", Detail: "high"},
		}},
		protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{{Type: "summary_text", Text: "thinking"}}, EncryptedContent: &enc},
		text("assistant", "Let me look."),
		protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{},
			Content: []protocol.ReasoningContent{{Type: "reasoning_text", Text: "A cat, then ls."}}},
		text("assistant", "A cat. Listing files."),
		protocol.FunctionCallItem{Name: "shell", Arguments: `{"command":["ls"]}`, CallID: "call_a"},
		protocol.FunctionCallItem{Name: "view_image", Arguments: `{"path":"cat.png"}`, CallID: "call_b"},
		out("call_a", "cat.png\nmain.go"),
		protocol.FunctionCallOutputItem{CallID: "call_b", Output: protocol.FunctionCallOutputPayload{ContentItems: []protocol.ContentItem{
			{Type: protocol.ContentInputImage, ImageURL: "data:image/png;base64,AAAA"},
		}}},
		protocol.CustomToolCallItem{Status: "completed", CallID: "call_c", Name: "apply_patch", Input: patchText},
		protocol.CustomToolCallOutputItem{CallID: "call_c", Output: protocol.FunctionCallOutputPayload{Content: "Success. Updated the following files:\nA a.txt\n"}},
		protocol.FunctionCallItem{Name: "get_weather", Namespace: "mcp__weather", Arguments: `{"city":"Paris"}`, CallID: "call_d"},
		out("call_d", "sunny"),
		protocol.LocalShellCallItem{CallID: ptr("call_e"), Status: "completed", Action: protocol.LocalShellAction{Type: "exec", Command: []string{"pwd"}}},
		out("call_e", "/work"),
		text("assistant", "Done."),
		text("user", "Thanks & bye <3"),
	}
	p.Tools = []json.RawMessage{
		json.RawMessage(`{"type":"function","name":"shell","description":"Runs a shell command.","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"],"additionalProperties":false}}`),
		json.RawMessage(`{"type":"function","name":"view_image","description":"View an image.","strict":false,"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}}`),
		json.RawMessage(`{"type":"custom","name":"apply_patch","description":"The apply_patch tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.","format":{"type":"grammar","syntax":"lark","definition":"start: begin_patch hunk+ end_patch"}}`),
		json.RawMessage(`{"type":"namespace","name":"mcp__weather","description":"Weather tools.","tools":[{"type":"function","name":"get_weather","description":"Weather of a city.","strict":false,"parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}`),
		json.RawMessage(`{"type":"web_search","external_web_access":false}`),
		json.RawMessage(`{"type":"local_shell"}`),
	}
	return p
}

func TestRequestGoldenHistory(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, o *model.ClientOptions) {
		p.QueryParams = map[string]string{"api-version": "2025-04-01-preview"}
		p.HTTPHeaders = map[string]string{"X-Static": "s"}
		p.EnvHTTPHeaders = map[string]string{"X-From-Env": "MOCK_ENV_HEADER"}
		o.Getenv = func(k string) string {
			if k == "MOCK_ENV_HEADER" {
				return "e"
			}
			return ""
		}
	})
	h.srv.Enqueue(testkit.ChatAnswer("ok", testkit.Usage{Input: 1, Output: 1}), testkit.ChatAnswer("ok", testkit.Usage{Input: 1, Output: 1}))
	for i := 0; i < 2; i++ {
		if _, err := h.run(t, historyPrompt()); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	checkGolden(t, "request_history.json", reqs[0].Body)
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Query != "api-version=2025-04-01-preview" {
		t.Errorf("sent to %s?%s", r.Path, r.Query)
	}
	for k, want := range map[string]string{"Authorization": "Bearer sk-test", "Accept": "text/event-stream",
		"Content-Type": "application/json", "X-Static": "s", "X-From-Env": "e", "Session-Id": "thread-1"} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	// The tools the wire cannot send are reported once per client, at warn level.
	logs := h.logs.String()
	if strings.Count(logs, "level=WARN") != 1 || !strings.Contains(logs, "types=\"web_search, local_shell\"") {
		t.Errorf("logs:\n%s", logs)
	}
}

func TestRequestGoldenMinimal(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatAnswer("ok", testkit.Usage{Input: 1, Output: 1}))
	p := prompt()
	p.Input = []protocol.ResponseItem{text("user", "hi")}
	if _, err := h.run(t, p); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "request_minimal.json", h.srv.Requests()[0].Body)
}

func TestFlatNameStaysWithinLimit(t *testing.T) {
	long := strings.Repeat("x", 80)
	a, b := flatName("mcp__server", long), flatName("mcp__server", long+"y")
	if len(a) != maxToolName || len(b) != maxToolName || a == b {
		t.Errorf("flat names %q %q", a, b)
	}
	if got := flatName("mcp__s", "t"); got != "mcp__s__t" {
		t.Errorf("short name %q", got)
	}
}

func TestBadToolSpecIsAnError(t *testing.T) {
	h := newHarness(t, nil)
	p := prompt()
	p.Tools = []json.RawMessage{json.RawMessage(`{"type":"function"}`)}
	if _, err := h.run(t, p); err == nil || !strings.Contains(err.Error(), "function tool without a name") {
		t.Errorf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func ptr[T any](v T) *T { return &v }
