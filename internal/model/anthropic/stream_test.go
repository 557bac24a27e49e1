package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

func assistantText(id, s string) protocol.MessageItem {
	return protocol.MessageItem{ID: id, Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: s}}}
}

// TestStreamText: a plain answer (with a ping in the middle) streams as Created, the
// message item added, its deltas, the finished item and Completed with the usage.
func TestStreamText(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.SSE(
		testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 12, OutputTokens: 1}),
		testkit.AnthropicPing(),
		testkit.AnthropicText(0, "Hello", " world"),
		testkit.AnthropicMessageDelta("end_turn", 7),
		testkit.AnthropicMessageStop(),
	))
	evs, err := h.run(t, userPrompt("claude-sonnet-4-5", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := []modelstream.ResponseEvent{
		modelstream.Created{},
		modelstream.OutputItemAdded{Item: protocol.MessageItem{ID: "msg_1_0", Role: "assistant", Content: []protocol.ContentItem{}}},
		modelstream.OutputTextDelta{ItemID: "msg_1_0", Delta: "Hello"},
		modelstream.OutputTextDelta{ItemID: "msg_1_0", Delta: " world"},
		modelstream.OutputItemDone{Item: assistantText("msg_1_0", "Hello world")},
		modelstream.Completed{ResponseID: "msg_1", Usage: &protocol.TokenUsage{InputTokens: 12, OutputTokens: 7, TotalTokens: 19}},
	}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestStreamThinkingAndTwoToolCalls: thinking (deltas and signature), text, a function call
// and a freeform call whose input JSON arrives in fragments. The thinking comes back as a
// reasoning item holding its signature; sent back in the next request, it is rebuilt
// unchanged before the tool_use blocks of the same assistant turn.
func TestStreamThinkingAndTwoToolCalls(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.SSE(
		testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 50}),
		testkit.AnthropicThinking(0, "sig-abc==", "Let me ", "think."),
		testkit.AnthropicText(1, "Running both."),
		testkit.AnthropicToolUse(2, "toolu_A", "shell", `{"comm`, `and":["ls",`, `"-l"]}`),
		testkit.AnthropicToolUse(3, "toolu_B", "apply_patch", `{"input":"*** Begin Patch\n`, `*** End Patch\n"}`),
		testkit.AnthropicMessageDelta("tool_use", 90),
		testkit.AnthropicMessageStop(),
	), testkit.AnthropicAnswer("msg_2", "All done."))
	p := fullPrompt()
	p.Input = userText("list and patch")
	evs, err := h.run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	var done []protocol.ResponseItem
	var reasoningDeltas []string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case modelstream.OutputItemDone:
			done = append(done, ev.Item)
		case modelstream.ReasoningContentDelta:
			reasoningDeltas = append(reasoningDeltas, ev.Delta)
		}
	}
	enc := "anthropic.thinking:sig-abc=="
	want := []protocol.ResponseItem{
		protocol.ReasoningItem{ID: "msg_1_0", Summary: []protocol.ReasoningSummary{},
			Content: []protocol.ReasoningContent{{Type: "reasoning_text", Text: "Let me think."}}, EncryptedContent: &enc},
		assistantText("msg_1_1", "Running both."),
		protocol.FunctionCallItem{ID: "msg_1_2", Name: "shell", Arguments: `{"command":["ls","-l"]}`, CallID: "toolu_A"},
		protocol.CustomToolCallItem{ID: "msg_1_3", Status: "completed", CallID: "toolu_B", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"},
	}
	if diff := cmp.Diff(want, done); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Let me ", "think."}, reasoningDeltas); diff != "" {
		t.Errorf("reasoning deltas (-want +got):\n%s", diff)
	}

	// The next request carries the items back with the tools' outputs.
	p.Input = append(p.Input, done...)
	p.Input = append(p.Input,
		protocol.FunctionCallOutputItem{CallID: "toolu_A", Output: protocol.FunctionCallOutputPayload{Content: "a.txt"}},
		protocol.CustomToolCallOutputItem{CallID: "toolu_B", Output: protocol.FunctionCallOutputPayload{Content: "Done!"}})
	if _, err := h.run(t, p); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 || body.Messages[1].Role != "assistant" {
		t.Fatalf("messages: %s", h.srv.Requests()[1].Body)
	}
	var got []string
	for _, c := range body.Messages[1].Content {
		got = append(got, string(c))
	}
	wantBlocks := []string{
		`{"type":"thinking","thinking":"Let me think.","signature":"sig-abc=="}`,
		`{"type":"text","text":"Running both."}`,
		`{"type":"tool_use","id":"toolu_A","name":"shell","input":{"command":["ls","-l"]}}`,
		`{"type":"tool_use","id":"toolu_B","name":"apply_patch","input":{"input":"*** Begin Patch\n*** End Patch\n"}}`,
	}
	if diff := cmp.Diff(wantBlocks, got); diff != "" {
		t.Errorf("assistant turn sent back (-want +got):\n%s", diff)
	}
	var results []string
	for _, c := range body.Messages[2].Content {
		results = append(results, string(c))
	}
	wantResults := []string{
		`{"type":"tool_result","tool_use_id":"toolu_A","content":"a.txt"}`,
		`{"type":"tool_result","tool_use_id":"toolu_B","content":"Done!","cache_control":{"type":"ephemeral"}}`,
	}
	if diff := cmp.Diff(wantResults, results); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

// TestStreamNamespacedCallAndRedactedThinking: a call of a flattened MCP tool comes back
// with its namespace; a redacted_thinking block becomes a reasoning item keeping its data.
func TestStreamNamespacedCallAndRedactedThinking(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.SSE(
		testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 5}),
		testkit.AnthropicRedactedThinking(0, "opaque=="),
		testkit.AnthropicToolUse(1, "toolu_N", "mcp__docs__search"),
		testkit.AnthropicMessageDelta("tool_use", 3),
		testkit.AnthropicMessageStop(),
	))
	evs, err := h.run(t, fullPrompt())
	if err != nil {
		t.Fatal(err)
	}
	var done []protocol.ResponseItem
	for _, ev := range evs {
		if d, ok := ev.(modelstream.OutputItemDone); ok {
			done = append(done, d.Item)
		}
	}
	enc := "anthropic.redacted:opaque=="
	want := []protocol.ResponseItem{
		protocol.ReasoningItem{ID: "msg_1_0", Summary: []protocol.ReasoningSummary{}, EncryptedContent: &enc},
		protocol.FunctionCallItem{ID: "msg_1_1", Name: "search", Namespace: "mcp__docs", Arguments: "{}", CallID: "toolu_N"},
	}
	if diff := cmp.Diff(want, done); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// TestStreamUsageWithCache: cache reads and writes count as input; reads are the cached
// input, writes are reported as cache writes.
func TestStreamUsageWithCache(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.SSE(
		testkit.AnthropicMessageStart("msg_1", testkit.AnthropicUsage{InputTokens: 100, CacheCreationInputTokens: 2000, CacheReadInputTokens: 5000, OutputTokens: 1}),
		testkit.AnthropicText(0, "ok"),
		testkit.AnthropicMessageDelta("end_turn", 50),
		testkit.AnthropicMessageStop(),
	))
	evs, err := h.run(t, userPrompt("claude-sonnet-4-5", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := evs[len(evs)-1].(modelstream.Completed)
	if !ok {
		t.Fatalf("last event %T, want Completed", evs[len(evs)-1])
	}
	want := &protocol.TokenUsage{InputTokens: 7100, CachedInputTokens: 5000, CacheWriteInputTokens: 2000, OutputTokens: 50, TotalTokens: 7150}
	if diff := cmp.Diff(want, c.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}
