package anthropic_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
)

// finished keeps what the engine records from a response: the finished items (without the
// wire's item ids) and the usage.
func finished(evs []modelstream.ResponseEvent) ([]protocol.ResponseItem, *protocol.TokenUsage) {
	var items []protocol.ResponseItem
	var usage *protocol.TokenUsage
	for _, ev := range evs {
		switch ev := ev.(type) {
		case modelstream.OutputItemDone:
			switch it := ev.Item.(type) {
			case protocol.MessageItem:
				it.ID = ""
				items = append(items, it)
			case protocol.FunctionCallItem:
				it.ID = ""
				items = append(items, it)
			case protocol.CustomToolCallItem:
				it.ID = ""
				items = append(items, it)
			default:
				items = append(items, it)
			}
		case modelstream.Completed:
			usage = ev.Usage
		}
	}
	return items, usage
}

// TestParityWithResponses: the same answer (text, a function call, a freeform call, usage
// with cache reads) scripted on the Responses wire and on the Messages wire gives the engine
// the same items and the same usage.
func TestParityWithResponses(t *testing.T) {
	// The Responses side.
	rsrv := testkit.NewServer(t)
	rsrv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("msg_r", "Hel", "lo"),
		testkit.FunctionCall("call_1", "shell", `{"command":["ls"]}`),
		testkit.CustomToolCall("call_2", "apply_patch", "*** Begin Patch\n*** End Patch\n"),
		testkit.Completed(testkit.Usage{Input: 1000, Cached: 800, Output: 20})))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	rc, err := model.NewClient(model.ClientOptions{Provider: model.ProviderInfo{BaseURL: rsrv.BaseURL()},
		HTTPClient: &http.Client{Transport: tr}, Clock: &fakeClock{}})
	if err != nil {
		t.Fatal(err)
	}
	p := fullPrompt()
	p.Input = userText("go")
	rs, err := rc.Streamer().Stream(t.Context(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var revs []modelstream.ResponseEvent
	for {
		ev, err := rs.Next(t.Context())
		if err != nil {
			break
		}
		revs = append(revs, ev)
	}
	rs.Close()

	// The Messages side.
	ah := newHarness(t, nil)
	ah.srv.Enqueue(testkit.SSE(
		testkit.AnthropicMessageStart("msg_a", testkit.AnthropicUsage{InputTokens: 200, CacheReadInputTokens: 800}),
		testkit.AnthropicText(0, "Hel", "lo"),
		testkit.AnthropicToolUse(1, "call_1", "shell", `{"command":`, `["ls"]}`),
		testkit.AnthropicToolUse(2, "call_2", "apply_patch", `{"input":"*** Begin Patch\n*** End Patch\n"}`),
		testkit.AnthropicMessageDelta("tool_use", 20), testkit.AnthropicMessageStop()))
	aevs, err := ah.run(t, p)
	if err != nil {
		t.Fatal(err)
	}

	ritems, rusage := finished(revs)
	aitems, ausage := finished(aevs)
	if len(ritems) != 3 {
		t.Fatalf("responses side gave %d items: %#v", len(ritems), ritems)
	}
	if diff := cmp.Diff(ritems, aitems); diff != "" {
		t.Errorf("items differ (-responses +anthropic):\n%s", diff)
	}
	if diff := cmp.Diff(rusage, ausage); diff != "" {
		t.Errorf("usage differs (-responses +anthropic):\n%s", diff)
	}
}
