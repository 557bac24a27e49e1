package anthropic_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/model/anthropic"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata")

func text(role, s string) protocol.MessageItem {
	typ := protocol.ContentInputText
	if role == "assistant" {
		typ = protocol.ContentOutputText
	}
	return protocol.MessageItem{Role: role, Content: []protocol.ContentItem{{Type: typ, Text: s}}}
}

func strp(s string) *string { return &s }

func boolp(b bool) *bool { return &b }

// fullPrompt is a history with every item kind the wire maps: a developer message, text and
// two images, thinking with its signature, text and two tool calls in one assistant turn
// (one namespaced), their results (one an error with content items), redacted thinking, a
// freeform call and its result, reasoning from another provider (not sent) and a last user
// message. The tools include a freeform tool, a namespace and two built-ins the wire drops.
func fullPrompt() modelstream.Prompt {
	return modelstream.Prompt{
		Model:        "claude-sonnet-4-5-20250929",
		Instructions: "You are a coding agent.",
		Tools: []json.RawMessage{
			json.RawMessage(`{"type":"function","name":"shell","description":"Runs a command.","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"],"additionalProperties":false}}`),
			json.RawMessage(`{"type":"custom","name":"apply_patch","description":"Edits files.","format":{"type":"grammar","syntax":"lark","definition":"start: begin_patch"}}`),
			json.RawMessage(`{"type":"namespace","name":"mcp__docs","description":"Docs server.","tools":[{"type":"function","name":"search","description":"Searches the docs.","strict":false,"parameters":{"type":"object","properties":{"q":{"type":"string"}}}}]}`),
			json.RawMessage(`{"type":"web_search"}`),
			json.RawMessage(`{"type":"local_shell"}`),
		},
		ParallelToolCalls: false,
		Reasoning:         &modelstream.Reasoning{Effort: "high", Summary: "auto"},
		PromptCacheKey:    "thread-1",
		Input: []protocol.ResponseItem{
			text("developer", "<permissions>workspace-write</permissions>"),
			protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{
				{Type: protocol.ContentInputText, Text: "What is in this screenshot and this repo?"},
				{Type: protocol.ContentInputImage, ImageURL: "data:image/png;base64,iVBORw0KGgo="},
				{Type: protocol.ContentInputImage, ImageURL: "https://example.com/diagram.jpg"},
			}},
			protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{},
				Content:          []protocol.ReasoningContent{{Type: "reasoning_text", Text: "I should list the files."}},
				EncryptedContent: strp("anthropic.thinking:EqQBCkYIBxgCKkDsig==")},
			text("assistant", "Let me look."),
			protocol.FunctionCallItem{Name: "shell", Arguments: `{"command":["ls"]}`, CallID: "toolu_01"},
			protocol.FunctionCallItem{Name: "search", Namespace: "mcp__docs", Arguments: `{"q":"layout"}`, CallID: "toolu_02"},
			protocol.FunctionCallOutputItem{CallID: "toolu_01", Output: protocol.FunctionCallOutputPayload{Content: "README.md\nmain.go"}},
			protocol.FunctionCallOutputItem{CallID: "toolu_02", Output: protocol.FunctionCallOutputPayload{
				ContentItems: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: "server unavailable"}}, Success: boolp(false)}},
			protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{}, EncryptedContent: strp("anthropic.redacted:RWRhY3RlZA==")},
			protocol.CustomToolCallItem{Status: "completed", CallID: "toolu_03", Name: "apply_patch", Input: "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"},
			protocol.CustomToolCallOutputItem{CallID: "toolu_03", Output: protocol.FunctionCallOutputPayload{Content: "Done!"}},
			text("assistant", "Patched."),
			protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{{Type: "summary_text", Text: "other provider"}}, EncryptedContent: strp("gAAAAABforeign")},
			text("user", "Thanks. Now run the tests."),
		},
	}
}

// minimalPrompt has no instructions or tools, a model the table does not know (8192 tokens,
// no thinking even though an effort is set), and a call that was interrupted before its
// output.
func minimalPrompt() modelstream.Prompt {
	return modelstream.Prompt{
		Model:     "my-claude-proxy",
		Reasoning: &modelstream.Reasoning{Effort: "medium"},
		Input: []protocol.ResponseItem{
			text("user", "hi"),
			protocol.FunctionCallItem{Name: "shell", Arguments: `not json`, CallID: "toolu_09"},
			text("user", "continue?"),
		},
	}
}

// enginePrompt is a second turn's prompt as the engine builds it (agent.promptFor): no
// instructions field, the base instructions as the first developer message, then the
// thread's developer message (permissions, developer instructions), the context as a user
// message, the first turn, a developer message sent when the settings changed mid-thread,
// and the new user message.
func enginePrompt() modelstream.Prompt {
	return modelstream.Prompt{
		Model: "claude-sonnet-4-5-20250929",
		Input: []protocol.ResponseItem{
			text("developer", "You are Codex, a coding agent."),
			protocol.MessageItem{Role: "developer", Content: []protocol.ContentItem{
				{Type: protocol.ContentInputText, Text: "<permissions instructions>workspace-write</permissions instructions>"},
				{Type: protocol.ContentInputText, Text: "Answer in French."},
			}},
			text("user", "<environment_context>\n  <cwd>/work</cwd>\n</environment_context>"),
			text("user", "hi"),
			text("assistant", "Bonjour."),
			text("developer", "<permissions instructions>read-only</permissions instructions>"),
			text("user", "list the files"),
		},
	}
}

func TestRequestGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prompt modelstream.Prompt
	}{
		{"request_full", fullPrompt()},
		{"request_minimal", minimalPrompt()},
		{"request_engine", enginePrompt()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "ok"))
			if _, err := h.run(t, tc.prompt); err != nil {
				t.Fatal(err)
			}
			reqs := h.srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			var got bytes.Buffer
			if err := json.Indent(&got, reqs[0].Body, "", "  "); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, reqs[0].Body)
			}
			got.WriteByte('\n')
			path := filepath.Join("testdata", tc.name+".json")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("request body differs from %s (-want +got; rerun with -update after checking):\n%s", path, diff)
			}
		})
	}
}

// TestRequestHeaders checks the Messages headers: the key only in x-api-key, the API version,
// JSON content type, the provider's own headers, and the URL with query params.
func TestRequestHeaders(t *testing.T) {
	h := newHarness(t, func(p *model.ProviderInfo, o *model.ClientOptions) {
		p.HTTPHeaders = map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}
		p.QueryParams = map[string]string{"b": "2", "a": "1"}
	})
	h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "ok"))
	if _, err := h.run(t, userPrompt("claude-opus-4-1", "hi")); err != nil {
		t.Fatal(err)
	}
	r := h.srv.Requests()[0]
	checks := map[string]string{
		"X-Api-Key": testKey, "Anthropic-Version": "2023-06-01", "Content-Type": "application/json",
		"Accept": "text/event-stream", "Anthropic-Beta": "prompt-caching-2024-07-31", "Authorization": "",
	}
	for k, want := range checks {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if r.Path != "/v1/messages" || r.Query != "a=1&b=2" {
		t.Errorf("request to %s?%s, want /v1/messages?a=1&b=2", r.Path, r.Query)
	}
	if got := r.JSON["max_tokens"]; got != json.Number("32000") {
		t.Errorf("max_tokens = %v, want 32000 for claude-opus-4-1", got)
	}
}

// TestMaxTokensOverride: WithMaxTokens replaces the table's limit, and the thinking budget
// stays below it.
func TestMaxTokensOverride(t *testing.T) {
	h := newHarness(t, nil, anthropic.WithMaxTokens(8000))
	h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "ok"))
	p := userPrompt("claude-sonnet-4-20250514", "hi")
	p.Reasoning = &modelstream.Reasoning{Effort: "xhigh"}
	if _, err := h.run(t, p); err != nil {
		t.Fatal(err)
	}
	body := h.srv.Requests()[0].JSON
	if body["max_tokens"] != json.Number("8000") {
		t.Errorf("max_tokens = %v, want 8000", body["max_tokens"])
	}
	th, _ := body["thinking"].(map[string]any)
	if th["type"] != "enabled" || th["budget_tokens"] != json.Number("6000") {
		t.Errorf("thinking = %v, want enabled with 6000 (three quarters of 8000)", th)
	}
}

// TestDroppedToolsWarnOnce: built-in tools the wire cannot send are reported once per client
// at warn level, and the log never holds the key.
func TestDroppedToolsWarnOnce(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "ok"), testkit.AnthropicAnswer("msg_2", "ok"))
	for range 2 {
		if _, err := h.run(t, fullPrompt()); err != nil {
			t.Fatal(err)
		}
	}
	logs := h.logs.String()
	for _, tool := range []string{"tool=web_search", "tool=local_shell"} {
		if n := strings.Count(logs, tool); n != 1 {
			t.Errorf("%s logged %d times, want once:\n%s", tool, n, logs)
		}
	}
	if !strings.Contains(logs, "level=WARN") {
		t.Errorf("no warning logged:\n%s", logs)
	}
	if strings.Contains(logs, testKey) {
		t.Errorf("log holds the API key:\n%s", logs)
	}
}

// TestThinkingInToolLoop: thinking is sent when the assistant turn being continued began
// with thinking, and left off (the API would reject it) when that turn has none, as after a
// switch of model or provider mid-turn.
func TestThinkingInToolLoop(t *testing.T) {
	enc := "anthropic.thinking:sig"
	loop := func(withThinking bool) []protocol.ResponseItem {
		items := []protocol.ResponseItem{text("user", "run ls")}
		if withThinking {
			items = append(items, protocol.ReasoningItem{Summary: []protocol.ReasoningSummary{}, EncryptedContent: &enc})
		}
		return append(items,
			protocol.FunctionCallItem{Name: "shell", Arguments: `{}`, CallID: "toolu_1"},
			protocol.FunctionCallOutputItem{CallID: "toolu_1", Output: protocol.FunctionCallOutputPayload{Content: "a"}})
	}
	for _, withThinking := range []bool{true, false} {
		h := newHarness(t, nil)
		h.srv.Enqueue(testkit.AnthropicAnswer("msg_1", "ok"))
		p := modelstream.Prompt{Model: "claude-opus-4-1", Input: loop(withThinking), Reasoning: &modelstream.Reasoning{Effort: "low"}}
		if _, err := h.run(t, p); err != nil {
			t.Fatal(err)
		}
		_, sent := h.srv.Requests()[0].JSON["thinking"]
		if sent != withThinking {
			t.Errorf("turn with thinking=%v: thinking sent=%v", withThinking, sent)
		}
	}
}

// TestBadImageURL: an image the wire cannot carry is a clear error before any request.
func TestBadImageURL(t *testing.T) {
	h := newHarness(t, nil)
	p := modelstream.Prompt{Model: "claude-sonnet-4-5", Input: []protocol.ResponseItem{protocol.MessageItem{Role: "user",
		Content: []protocol.ContentItem{{Type: protocol.ContentInputImage, ImageURL: "file:///tmp/x.png"}}}}}
	_, err := h.run(t, p)
	if err == nil || !strings.Contains(err.Error(), "neither a base64 data URL nor http(s)") {
		t.Fatalf("error = %v, want one about the image URL", err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
