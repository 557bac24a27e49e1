package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/protocol"
)

// A hosted web search shows as web_search_begin when the item starts and web_search_end with
// the query when it is done, so faces can show a web_search item.
func TestWebSearchEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	item := map[string]any{"type": "web_search_call", "id": "ws_1", "status": "completed",
		"action": map[string]any{"type": "search", "query": "gocodex"}}
	started := map[string]any{"type": "web_search_call", "id": "ws_1", "status": "in_progress"}
	h.srv.Enqueue(testkit.SSE(testkit.Created(),
		testkit.Raw("response.output_item.added", map[string]any{"type": "response.output_item.added", "item": started}),
		testkit.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "item": item}),
		testkit.AssistantMessage("m1", "found it"), testkit.Completed(testkit.Usage{})))
	h.say("search")
	evs := h.until(turnEnd)
	want := []string{"session_configured", "task_started", "user_message", "web_search_begin", "web_search_end", "agent_message", "token_count", "task_complete"}
	if diff := cmp.Diff(want, compact(types(evs))); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	end, _ := find[protocol.WebSearchEndEvent](evs)
	if end.CallID != "ws_1" || end.Query != "gocodex" || !json.Valid(end.Action) {
		t.Errorf("web_search_end = %+v", end)
	}
}
