package chat

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

const msgID, rsID = "msg_" + testkit.ChatID, "rs_" + testkit.ChatID

func tokens(in, cached, outTok, reasoning int64) *protocol.TokenUsage {
	return &protocol.TokenUsage{InputTokens: in, CachedInputTokens: cached, OutputTokens: outTok, ReasoningOutputTokens: reasoning, TotalTokens: in + outTok}
}

func assistant(s string) modelstream.OutputItemDone {
	return modelstream.OutputItemDone{Item: protocol.MessageItem{ID: msgID, Role: "assistant",
		Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: s}}}}
}

func completed(u *protocol.TokenUsage) modelstream.Completed {
	return modelstream.Completed{ResponseID: testkit.ChatID, Usage: u}
}

func checkEvents(t *testing.T, h *harness, p modelstream.Prompt, want []modelstream.ResponseEvent) {
	t.Helper()
	got, err := h.run(t, p)
	if err != nil {
		t.Fatalf("stream: %v (events %v)", err, got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestTextReply(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(testkit.ChatText("Hel"), testkit.ChatText("lo"), testkit.ChatFinish("stop"),
		testkit.ChatUsage(testkit.Usage{Input: 10, Cached: 4, Output: 3}), testkit.ChatDone()))
	checkEvents(t, h, prompt(), []modelstream.ResponseEvent{
		modelstream.Created{},
		modelstream.OutputTextDelta{ItemID: msgID, Delta: "Hel"},
		modelstream.OutputTextDelta{ItemID: msgID, Delta: "lo"},
		assistant("Hello"),
		completed(tokens(10, 4, 3, 0)),
	})
}

func TestReasoningReplyBothFieldNames(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(testkit.ChatReasoning("Think"), testkit.ChatReasoningField("ing."), testkit.ChatText("Yes."),
		testkit.ChatFinish("stop"), testkit.ChatUsage(testkit.Usage{Input: 5, Output: 9, Reasoning: 6}), testkit.ChatDone()))
	checkEvents(t, h, prompt(), []modelstream.ResponseEvent{
		modelstream.Created{},
		modelstream.ReasoningContentDelta{ItemID: rsID, Delta: "Think"},
		modelstream.ReasoningContentDelta{ItemID: rsID, Delta: "ing."},
		modelstream.OutputTextDelta{ItemID: msgID, Delta: "Yes."},
		modelstream.OutputItemDone{Item: protocol.ReasoningItem{ID: rsID, Summary: []protocol.ReasoningSummary{},
			Content: []protocol.ReasoningContent{{Type: "reasoning_text", Text: "Thinking."}}}},
		assistant("Yes."),
		completed(tokens(5, 0, 9, 6)),
	})
}

// Two calls whose fragments interleave, a freeform apply_patch call and an MCP tool come back
// as the items the engine runs, in index order, after the text.
func TestParallelToolCallsInterleaved(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(
		testkit.ChatText("Running."),
		testkit.ChatToolCall(0, "call_a", "shell"),
		testkit.ChatToolCall(1, "call_b", "apply_patch"),
		testkit.ChatToolArgs(0, `{"comm`),
		testkit.ChatToolArgs(1, `{"input":"*** Begin Patch\n`),
		testkit.ChatToolArgs(0, `and":["ls"]}`),
		testkit.ChatToolArgs(1, `*** End Patch"}`),
		testkit.ChatToolCall(2, "call_c", "mcp__weather__get_weather"),
		testkit.ChatToolArgs(2, `{"city":"Paris"}`),
		testkit.ChatToolCall(3, "call_d", "update_plan"),
		testkit.ChatFinish("tool_calls"),
		testkit.ChatUsage(testkit.Usage{Input: 20, Output: 30}),
		testkit.ChatDone()))
	checkEvents(t, h, historyPrompt(), []modelstream.ResponseEvent{
		modelstream.Created{},
		modelstream.OutputTextDelta{ItemID: msgID, Delta: "Running."},
		assistant("Running."),
		modelstream.OutputItemDone{Item: protocol.FunctionCallItem{Name: "shell", Arguments: `{"command":["ls"]}`, CallID: "call_a"}},
		modelstream.OutputItemDone{Item: protocol.CustomToolCallItem{Status: "completed", CallID: "call_b", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch"}},
		modelstream.OutputItemDone{Item: protocol.FunctionCallItem{Name: "get_weather", Namespace: "mcp__weather", Arguments: `{"city":"Paris"}`, CallID: "call_c"}},
		modelstream.OutputItemDone{Item: protocol.FunctionCallItem{Name: "update_plan", Arguments: `{}`, CallID: "call_d"}},
		completed(tokens(20, 0, 30, 0)),
	})
}

// A server that leaves out the index, or repeats it, with one whole call per chunk still
// gets one item per id.
func TestWholeToolCallsPerChunk(t *testing.T) {
	noIndex := func(id string) string {
		return `{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"shell","arguments":"{}"}}]}}]}`
	}
	atZero := func(id string) string {
		return `{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"` + id + `","type":"function","function":{"name":"shell","arguments":"{}"}}]}}]}`
	}
	for name, chunk := range map[string]func(string) string{"no index": noIndex, "index 0": atZero} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.srv.Enqueue(testkit.ChatSSE(testkit.ChatRaw(chunk("c1")), testkit.ChatRaw(chunk("c2")), testkit.ChatFinish("tool_calls"), testkit.ChatDone()))
			got, err := h.run(t, prompt())
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, ev := range got {
				if d, ok := ev.(modelstream.OutputItemDone); ok {
					ids = append(ids, d.Item.(protocol.FunctionCallItem).CallID)
				}
			}
			if diff := cmp.Diff([]string{"c1", "c2"}, ids); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// A body that ends after the finish reason without [DONE] is a finished reply.
func TestEndWithoutDoneAfterFinish(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(testkit.ChatText("ok"), testkit.ChatFinish("stop")))
	checkEvents(t, h, prompt(), []modelstream.ResponseEvent{
		modelstream.Created{}, modelstream.OutputTextDelta{ItemID: msgID, Delta: "ok"}, assistant("ok"), completed(nil),
	})
}

func TestFinishLengthIsIncomplete(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatSSE(testkit.ChatText("par"), testkit.ChatFinish("length"), testkit.ChatDone()))
	_, err := h.run(t, prompt())
	if !errors.Is(err, model.ErrIncomplete) || err.Error() != "Incomplete response returned, reason: max_output_tokens" {
		t.Errorf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: an incomplete reply is not retried", n)
	}
}

// A server that holds the body open after the finish reason ends the reply at the idle
// timeout, without a retry.
func TestStallAfterFinishCompletes(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Enqueue(testkit.ChatStall(2, testkit.ChatText("ok"), testkit.ChatFinish("stop")))
	checkEvents(t, h, prompt(), []modelstream.ResponseEvent{
		modelstream.Created{}, modelstream.OutputTextDelta{ItemID: msgID, Delta: "ok"}, assistant("ok"), completed(nil),
	})
	if len(h.Retries()) != 0 {
		t.Errorf("retries %v", h.Retries())
	}
}
