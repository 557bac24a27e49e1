package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// answer is a response with one assistant message and the given total usage.
func answer(id, text string, total int64) testkit.Response {
	return testkit.SSE(testkit.Created(), testkit.AssistantMessage(id, text),
		testkit.Completed(testkit.Usage{Input: total - 1, Output: 1, Total: total}))
}

// firstLine is how summarize shows a message text.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// summarizeItems renders response items like summarize renders request input.
func summarizeItems(t *testing.T, items []protocol.ResponseItem) []string {
	t.Helper()
	data, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	var maps []map[string]any
	if err := json.Unmarshal(data, &maps); err != nil {
		t.Fatal(err)
	}
	return summarize(maps)
}

// lastText is the text of the last input item of request i.
func (h *harness) lastText(i int) string {
	h.t.Helper()
	in := h.requestInput(i)
	c := in[len(in)-1]["content"].([]any)
	return c[0].(map[string]any)["text"].(string)
}

func withCompactLimit(limit int64, more ...func(*ThreadConfig)) harnessOpts {
	return harnessOpts{cfg: func(c *ThreadConfig) {
		c.ModelInfo.AutoCompactTokenLimit = limit
		for _, f := range more {
			f(c)
		}
	}}
}

var (
	compactPromptLine = "user: " + firstLine(prompt.CompactPrompt())
	summaryLine       = "user: " + firstLine(prompt.SummaryPrefix())
)

// compactionEvents are the events of one compaction, in order.
var compactionEvents = []string{"item_started", "token_count", "token_count", "token_count", "item_completed", "context_compacted"}

func TestCompactOp(t *testing.T) {
	rec := &memRecorder{}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.Recorder = rec }})
	h.srv.Enqueue(answer("m1", "one", 50), answer("s1", "SUMMARY", 20), answer("m2", "two", 60))
	h.say("first")
	h.until(turnEnd)
	id := h.submit(protocol.CompactOp{})
	evs := h.until(turnEnd)

	want := append(append([]string{"task_started"}, compactionEvents...), "task_complete")
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("compact turn events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if e.ID != id {
			t.Errorf("%s has id %q, want %q", e.Msg.EventType(), e.ID, id)
		}
	}
	started, completed := evs[1].Msg.(protocol.ItemStartedEvent), evs[5].Msg.(protocol.ItemCompletedEvent)
	var item struct{ Type, ID string }
	if err := json.Unmarshal(started.Item, &item); err != nil || item.Type != "ContextCompaction" || item.ID == "" {
		t.Errorf("item_started item = %s (%v)", started.Item, err)
	}
	if string(completed.Item) != string(started.Item) || completed.TurnID != id || completed.ThreadID != h.thread.ID() {
		t.Errorf("item_completed = %+v, started %+v", completed, started)
	}
	before := evs[2].Msg.(protocol.TokenCountEvent).Info
	if before.TotalTokenUsage.TotalTokens != 50 || before.LastTokenUsage.TotalTokens != 50 {
		t.Errorf("usage before compaction = %+v", before)
	}
	summaryUsage, estimate := evs[3].Msg.(protocol.TokenCountEvent).Info, evs[4].Msg.(protocol.TokenCountEvent).Info
	if summaryUsage.LastTokenUsage.TotalTokens != 20 || summaryUsage.TotalTokenUsage.TotalTokens != 70 {
		t.Errorf("usage after the summary = %+v", summaryUsage)
	}
	if estimate.TotalTokenUsage.TotalTokens != 70 || estimate.LastTokenUsage.InputTokens != 0 ||
		estimate.LastTokenUsage.TotalTokens != estimateTokens(h.thread.hist.snapshot()) || !estimate.LastUsageIncludesReasoning {
		t.Errorf("usage after compaction = %+v", estimate)
	}

	// The summary request: the whole history, then our prompt.
	wantReq := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one", compactPromptLine}
	if diff := cmp.Diff(wantReq, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("summary request (-want +got):\n%s", diff)
	}
	if got := h.lastText(1); got != prompt.CompactPrompt() {
		t.Errorf("summary request ends with %q", got)
	}
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &body); err != nil || body["prompt_cache_key"] != h.thread.ID() {
		t.Errorf("summary request body: %v, prompt_cache_key %v", err, body["prompt_cache_key"])
	}

	// The next turn sees the rebuilt history.
	h.say("second")
	h.until(turnEnd)
	wantNext := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", summaryLine, "user: second"}
	if diff := cmp.Diff(wantNext, summarize(h.requestInput(2))); diff != "" {
		t.Errorf("request after compaction (-want +got):\n%s", diff)
	}
	in := h.requestInput(2)
	if got := in[3]["content"].([]any)[0].(map[string]any)["text"]; got != prompt.SummaryMessage("SUMMARY") {
		t.Errorf("summary message = %q", got)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.compacted) != 1 {
		t.Fatalf("RecordCompacted called %d times", len(rec.compacted))
	}
	c := rec.compacted[0]
	if c.message != prompt.SummaryMessage("SUMMARY") {
		t.Errorf("compacted message = %q", c.message)
	}
	if diff := cmp.Diff(wantNext[:4], summarizeItems(t, c.replacement)); diff != "" {
		t.Errorf("replacement history (-want +got):\n%s", diff)
	}
}

func TestCompactPromptOverride(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.CompactPrompt = "Summarise, briefly." }})
	h.srv.Enqueue(answer("s1", "S", 5))
	h.submit(protocol.CompactOp{})
	h.until(turnEnd)
	if got := h.lastText(0); got != "Summarise, briefly." {
		t.Errorf("summary request ends with %q", got)
	}
}

func TestAutoCompactBeforeTurn(t *testing.T) {
	h := newHarness(t, withCompactLimit(1000))
	h.srv.Enqueue(answer("m1", "one", 5000), answer("s1", "SUMMARY", 100), answer("m2", "two", 300))
	h.say("first")
	h.until(turnEnd)
	h.say("second")
	evs := h.until(turnEnd)
	want := append(append([]string{"task_started"}, compactionEvents...),
		"user_message", "agent_message", "token_count", "task_complete")
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	wantReq := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one", compactPromptLine}
	if diff := cmp.Diff(wantReq, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("summary request (-want +got):\n%s", diff)
	}
	wantNext := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", summaryLine, "user: second"}
	if diff := cmp.Diff(wantNext, summarize(h.requestInput(2))); diff != "" {
		t.Errorf("turn request after compaction (-want +got):\n%s", diff)
	}
}

func TestAutoCompactMidTurn(t *testing.T) {
	shell := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		return tool.Result{Output: "ran", Success: true}, nil
	}}
	h := newHarness(t, withCompactLimit(1000, func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: shell}
	}))
	h.srv.Enqueue(
		answer("m1", "one", 10),
		testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{Total: 5000})),
		answer("s1", "SUMMARY", 100),
		answer("m2", "done", 300),
	)
	h.say("first")
	h.until(turnEnd)
	h.say("second")
	evs := h.until(turnEnd)
	want := append(append([]string{"task_started", "user_message", "token_count"}, compactionEvents...),
		"agent_message", "token_count", "task_complete")
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	wantReq := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one",
		"user: second", "function_call shell c1", "function_call_output c1: ran", compactPromptLine}
	if diff := cmp.Diff(wantReq, summarize(h.requestInput(2))); diff != "" {
		t.Errorf("summary request (-want +got):\n%s", diff)
	}
	// Within a turn the context goes back in just before the user's last message.
	wantNext := []string{"user: first", "developer: <permissions instructions>", "user: <environment_context>", "user: second", summaryLine}
	if diff := cmp.Diff(wantNext, summarize(h.requestInput(3))); diff != "" {
		t.Errorf("follow-up request after compaction (-want +got):\n%s", diff)
	}
}

func TestNoAutoCompactWithoutFollowUp(t *testing.T) {
	h := newHarness(t, withCompactLimit(1000))
	h.srv.Enqueue(answer("m1", "one", 5000))
	h.say("first")
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ContextCompactedEvent](evs); ok || len(h.srv.Requests()) != 1 {
		t.Errorf("a turn that ends compacted anyway: %v", types(evs))
	}
}

func TestResumedUsageTriggersCompaction(t *testing.T) {
	past := []protocol.ResponseItem{textMessage("user", "old question"), protocol.MessageItem{Role: "assistant",
		Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "old answer"}}}}
	h := newHarness(t, withCompactLimit(1000, func(c *ThreadConfig) {
		c.InitialHistory = past
		c.InitialUsage = &protocol.TokenUsageInfo{LastTokenUsage: protocol.TokenUsage{TotalTokens: 4000}, TotalTokenUsage: protocol.TokenUsage{TotalTokens: 9000}}
	}))
	h.srv.Enqueue(answer("s1", "SUMMARY", 100), answer("m1", "new", 200))
	h.say("new question")
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ContextCompactedEvent](evs); !ok {
		t.Fatalf("no compaction before the first resumed turn: %v", types(evs))
	}
	wantNext := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: old question", summaryLine, "user: new question"}
	if diff := cmp.Diff(wantNext, summarize(h.requestInput(1))); diff != "" {
		t.Errorf("request after compaction (-want +got):\n%s", diff)
	}
	tok := evs[len(evs)-2].Msg.(protocol.TokenCountEvent)
	if tok.Info.TotalTokenUsage.TotalTokens != 9300 {
		t.Errorf("total usage = %d, want the resumed 9000 + 300", tok.Info.TotalTokenUsage.TotalTokens)
	}
}

func TestCompactTrimsOverflowingRequest(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(answer("m1", "one", 10),
		testkit.SSE(testkit.Created(), testkit.Failed("context_length_exceeded", "Your input exceeds the context window of this model.")),
		answer("s1", "SUMMARY", 10))
	h.say("first")
	h.until(turnEnd)
	h.submit(protocol.CompactOp{})
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ContextCompactedEvent](evs); !ok {
		t.Fatalf("not compacted: %v", types(evs))
	}
	if w, ok := find[protocol.WarningEvent](evs); !ok || !strings.Contains(w.Message, "1 oldest") {
		t.Errorf("warning = %+v", w)
	}
	first, second := summarize(h.requestInput(1)), summarize(h.requestInput(2))
	if diff := cmp.Diff(first[1:], second); diff != "" {
		t.Errorf("retried summary request should leave out the oldest item (-want +got):\n%s", diff)
	}
}

func TestCompactFailureReportsError(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.Failed("invalid_prompt", "bad prompt")))
	h.submit(protocol.CompactOp{})
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ErrorEvent](evs); !ok {
		t.Errorf("no error event: %v", types(evs))
	}
	if _, ok := find[protocol.ContextCompactedEvent](evs); ok {
		t.Errorf("a failed compaction reported success")
	}
}

func TestInterruptDuringCompaction(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(answer("m1", "one", 10), testkit.Stall(1, testkit.Created()), answer("m2", "two", 10))
	h.say("first")
	h.until(turnEnd)
	h.submit(protocol.CompactOp{})
	h.until(isType("item_started"))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := h.srv.AwaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok {
		t.Fatalf("compaction not aborted: %v", types(evs))
	}
	h.say("second")
	h.until(turnEnd)
	got := summarize(h.requestInput(2))
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: first", "assistant: one",
		"user: <turn_aborted>", "user: second"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history after an interrupted compaction (-want +got):\n%s", diff)
	}
}

func TestCompactOpReplacesRunningTurn(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(testkit.Stall(1, testkit.Created()), answer("s1", "SUMMARY", 10), answer("m2", "two", 10))
	h.say("first")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := h.srv.AwaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	h.submit(protocol.CompactOp{})
	evs := h.until(turnEnd)
	if ab, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok || ab.Reason != protocol.AbortReplaced {
		t.Fatalf("running turn not replaced: %v", types(evs))
	}
	evs = h.until(turnEnd)
	if _, ok := find[protocol.ContextCompactedEvent](evs); !ok {
		t.Fatalf("compact turn: %v", types(evs))
	}
}

func TestHistoryUsageEstimate(t *testing.T) {
	var h history
	user := textMessage("user", "question")
	out := protocol.FunctionCallOutputItem{CallID: "c", Output: protocol.FunctionCallOutputPayload{Content: strings.Repeat("x", 400)}}
	call := protocol.FunctionCallItem{Name: "shell", CallID: "c", Arguments: "{}"}
	img := protocol.MessageItem{Role: "user", Content: []protocol.ContentItem{{Type: protocol.ContentInputImage, ImageURL: "data:image/png;base64," + strings.Repeat("A", 1<<20)}}}
	tests := []struct {
		name  string
		items []protocol.ResponseItem
		want  int64
	}{
		{"nothing", nil, 0},
		{"all after the model", []protocol.ResponseItem{user}, estimateTokens([]protocol.ResponseItem{user})},
		{"covered by the response", []protocol.ResponseItem{user, call}, 0},
		{"tool output after the call", []protocol.ResponseItem{user, call, out}, estimateTokens([]protocol.ResponseItem{out})},
		{"image counted flat", []protocol.ResponseItem{call, img}, estimateTokens([]protocol.ResponseItem{img})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.replace(nil)
			h.append(tc.items...)
			if got := h.uncountedTokens(); got != tc.want {
				t.Errorf("uncounted = %d, want %d", got, tc.want)
			}
		})
	}
	if est := estimateTokens([]protocol.ResponseItem{img}); est < imageTokenEstimate || est > imageTokenEstimate+100 {
		t.Errorf("image estimate = %d", est)
	}
}

func TestKeepRecent(t *testing.T) {
	big := strings.Repeat("y", 4*30)
	tests := []struct {
		name   string
		texts  []string
		budget int
		want   []string
	}{
		{"all fit", []string{"aaaa", "bbbb"}, 10, []string{"aaaa", "bbbb"}},
		{"oldest dropped", []string{"aaaa", "bbbb", "cccc"}, 2, []string{"bbbb", "cccc"}},
		{"oldest kept one cut", []string{"old", big, "cccc"}, 11, []string{"yyyyyyyyyyyyyyyyyyyy…20 tokens truncated…yyyyyyyyyyyyyyyyyyyy", "cccc"}},
		{"none", nil, 10, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, keepRecent(tc.texts, tc.budget)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildCompacted(t *testing.T) {
	initial := []protocol.ResponseItem{textMessage("developer", "<permissions instructions>"), textMessage("user", "<environment_context>")}
	hist := append(append([]protocol.ResponseItem{}, initial...),
		textMessage("user", "one"),
		protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "ok"}}},
		textMessage("user", prompt.SummaryMessage("an older summary")),
		textMessage("user", prompt.TurnAbortedText()),
		textMessage("user", "two"),
	)
	tests := []struct {
		place contextPlacement
		want  []string
	}{
		{contextFirst, []string{"developer: <permissions instructions>", "user: <environment_context>", "user: one", "user: two", summaryLine}},
		{contextBeforeLastUser, []string{"user: one", "developer: <permissions instructions>", "user: <environment_context>", "user: two", summaryLine}},
	}
	for _, tc := range tests {
		got := summarizeItems(t, buildCompacted(hist, initial, prompt.SummaryMessage("S"), tc.place))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("placement %d (-want +got):\n%s", tc.place, diff)
		}
	}
	got := summarizeItems(t, buildCompacted(initial, initial, prompt.SummaryMessage("S"), contextBeforeLastUser))
	if diff := cmp.Diff([]string{"developer: <permissions instructions>", "user: <environment_context>", summaryLine}, got); diff != "" {
		t.Errorf("no user messages (-want +got):\n%s", diff)
	}
}

// BenchmarkCompactionRequest measures building the summary request for a 10,000-item
// history (prompt assembly and the JSON of its input, as the client sends it) and the
// rebuilt history. Run: go test -run '^$' -bench CompactionRequest ./agent
func BenchmarkCompactionRequest(b *testing.B) {
	th := &Thread{id: "bench"}
	tr := &turn{t: th, s: settings{model: "bench"}, registry: tools.NewRegistry(tool.Options{}, nil)}
	var hist []protocol.ResponseItem
	for i := 0; len(hist) < 10000; i++ {
		hist = append(hist,
			textMessage("user", fmt.Sprintf("please look at file %d and fix the failing test in it", i)),
			protocol.FunctionCallItem{Name: "shell", CallID: fmt.Sprint("c", i), Arguments: `{"command":["cat","file.go"]}`},
			protocol.FunctionCallOutputItem{CallID: fmt.Sprint("c", i), Output: protocol.FunctionCallOutputPayload{Content: strings.Repeat("package main\n", 20)}},
			protocol.MessageItem{Role: "assistant", Content: []protocol.ContentItem{{Type: protocol.ContentOutputText, Text: "Fixed it."}}},
		)
	}
	th.hist.append(hist...)
	initial := hist[:1]
	build := func(b *testing.B, encode bool) {
		for i := 0; i < b.N; i++ {
			snap := th.hist.snapshot()
			p := tr.promptFor(append(snap, textMessage("user", prompt.CompactPrompt())))
			if encode {
				if _, err := json.Marshal(p.Input); err != nil {
					b.Fatal(err)
				}
			}
			if r := buildCompacted(snap, initial, prompt.SummaryMessage("summary"), contextBeforeLastUser); len(r) == 0 {
				b.Fatal("empty history")
			}
		}
	}
	// The engine's own work: the request's input and the rebuilt history.
	b.Run("build", func(b *testing.B) { build(b, false) })
	// The same plus the JSON encoding of the input, which the model client does next.
	b.Run("build+json", func(b *testing.B) { build(b, true) })
}
