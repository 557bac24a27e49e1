package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func TestPlainAnswer(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.DeveloperInstructions = "Be terse."
		c.UserInstructions = "Use tabs."
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessageStream("m1", "Hel", "lo"), testkit.Completed(testkit.Usage{Input: 10, Output: 2})))
	first := h.until(isType("session_configured"))
	sc := first[0].Msg.(protocol.SessionConfiguredEvent)
	if sc.SessionID != h.thread.ID() || sc.Model != "test-model" {
		t.Errorf("session_configured = %+v", sc)
	}
	id := h.say("hi")
	evs := h.until(turnEnd)
	want := []string{"task_started", "user_message", "item_started", "agent_message_delta", "agent_message", "token_count", "task_complete"}
	if diff := cmp.Diff(want, compact(types(evs))); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for _, e := range evs {
		if e.ID != id {
			t.Errorf("%s has id %q, want the submission id %q", e.Msg.EventType(), e.ID, id)
		}
	}
	tc, _ := find[protocol.TurnCompleteEvent](evs)
	if tc.LastAgentMessage == nil || *tc.LastAgentMessage != "Hello" {
		t.Errorf("last_agent_message = %v", tc.LastAgentMessage)
	}
	tok, _ := find[protocol.TokenCountEvent](evs)
	if tok.Info == nil || tok.Info.TotalTokenUsage.TotalTokens != 12 || tok.Info.LastTokenUsage.InputTokens != 10 ||
		tok.Info.ModelContextWindow == nil || *tok.Info.ModelContextWindow != 200000 {
		t.Errorf("token_count = %+v", tok.Info)
	}
	got := summarize(h.requestInput(0))
	wantIn := []string{
		"developer: Be terse. | <permissions instructions>",
		"user: # AGENTS.md instructions for " + h.thread.cfg.Cwd + " | <environment_context>",
		"user: hi",
	}
	if diff := cmp.Diff(wantIn, got); diff != "" {
		t.Errorf("request input (-want +got):\n%s", diff)
	}
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if _, ok := body["instructions"]; ok {
		t.Errorf("instructions field sent; Codex 0.169 sends them as the first input message")
	}
	lead := body["input"].([]any)[0].(map[string]any)
	if text := lead["content"].([]any)[0].(map[string]any)["text"]; lead["role"] != "developer" || text != prompt.DefaultBaseInstructions() {
		t.Errorf("first input item is not our base instructions: %.80v", lead)
	}
	if body["prompt_cache_key"] != h.thread.ID() {
		t.Errorf("prompt_cache_key = %v", body["prompt_cache_key"])
	}
	var names []string
	for _, tl := range body["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	// No handler is registered, so no tool is offered.
	if len(names) != 0 {
		t.Errorf("tools = %v, want none without handlers", names)
	}
}

func TestReasoningEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.Reasoning("r1", "Think", "More"), testkit.ReasoningText("r1", 0, "raw"),
		testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("hi")
	evs := h.until(turnEnd)
	want := []string{"session_configured", "task_started", "user_message",
		"agent_reasoning_section_break", "agent_reasoning_delta", "agent_reasoning_section_break", "agent_reasoning_delta",
		"agent_reasoning", "agent_reasoning", "agent_reasoning_raw_content_delta", "agent_message", "token_count", "task_complete"}
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
}

func TestToolCallThenAnswer(t *testing.T) {
	shell := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		env.Emit(protocol.ExecCommandBeginEvent{CallID: call.CallID, TurnID: env.TurnID, Command: []string{"echo", "hi"}, Cwd: env.Cwd})
		env.Emit(protocol.ExecCommandEndEvent{CallID: call.CallID, TurnID: env.TurnID, Command: []string{"echo", "hi"}, Cwd: env.Cwd, Stdout: "hi\n"})
		return tool.Result{Output: "ran " + call.Arguments, Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: shell}
	}})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{"command":["echo","hi"]}`),
			testkit.FunctionCall("c2", "nope", `{}`), testkit.Completed(testkit.Usage{Input: 5, Output: 1})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "done"), testkit.Completed(testkit.Usage{Input: 7, Output: 1})),
	)
	h.say("run it")
	evs := h.until(turnEnd)
	// The tool runs while the stream goes on, so the first token_count may come before or
	// after the command's events; compare without token counts.
	var noTokens []string
	for _, ty := range types(evs) {
		if ty != "token_count" {
			noTokens = append(noTokens, ty)
		}
	}
	want := []string{"session_configured", "task_started", "user_message", "exec_command_begin", "exec_command_end",
		"agent_message", "task_complete"}
	if diff := cmp.Diff(want, noTokens); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	tok := evs[len(evs)-2].Msg.(protocol.TokenCountEvent)
	if tok.Info.TotalTokenUsage.TotalTokens != 14 || tok.Info.LastTokenUsage.TotalTokens != 8 {
		t.Errorf("usage = %+v", tok.Info)
	}
	got := summarize(h.requestInput(1))[2:]
	wantIn := []string{
		"user: run it",
		"function_call shell c1",
		"function_call nope c2",
		`function_call_output c1: ran {"command":["echo","hi"]}`,
		"function_call_output c2: unsupported call: nope",
	}
	if diff := cmp.Diff(wantIn, got); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	spec, _ := tools.BuiltinSpec(tools.NameShell, tool.Options{})
	var wantSpec any
	if err := json.Unmarshal(spec, &wantSpec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{wantSpec}, body["tools"]); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
}

func TestCustomToolCallOutput(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** End Patch"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("patch")
	h.until(turnEnd)
	got := summarize(h.requestInput(1))
	if want := "custom_tool_call_output p1: unsupported custom tool call: apply_patch"; got[len(got)-1] != want {
		t.Errorf("last item = %q, want %q", got[len(got)-1], want)
	}
}

func TestTwoTurns(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "one"), testkit.Completed(testkit.Usage{Input: 1, Output: 1})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "two"), testkit.Completed(testkit.Usage{Input: 2, Output: 1})),
	)
	h.say("first")
	h.until(turnEnd)
	h.say("second")
	evs := h.until(turnEnd)
	tc, _ := find[protocol.TurnCompleteEvent](evs)
	if tc.LastAgentMessage == nil || *tc.LastAgentMessage != "two" {
		t.Errorf("second turn last message = %v", tc.LastAgentMessage)
	}
	got := summarize(h.requestInput(1))
	want := []string{
		"developer: <permissions instructions>",
		"user: <environment_context>",
		"user: first",
		"assistant: one",
		"user: second",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second request (-want +got):\n%s", diff)
	}
}

func TestSettingsChangeBetweenTurns(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "one"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "two"), testkit.Completed(testkit.Usage{})),
	)
	h.say("first")
	h.until(turnEnd)
	newCwd := t.TempDir()
	h.submit(protocol.UserTurnOp{
		Items: []protocol.InputItem{protocol.TextInput("second")}, Cwd: newCwd,
		ApprovalPolicy: protocol.ApprovalOnRequest, SandboxPolicy: protocol.NewReadOnlyPolicy(), Model: "other-model",
	})
	h.until(turnEnd)
	got := summarize(h.requestInput(1))[4:]
	want := []string{"developer: <permissions instructions>", "user: <environment_context>", "user: second"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context update (-want +got):\n%s", diff)
	}
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "other-model" {
		t.Errorf("model = %v", body["model"])
	}
}

func TestRetryThenSuccess(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.Cut(1, testkit.Created(), testkit.AssistantMessage("m0", "lost"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("hi")
	evs := h.until(turnEnd)
	se, ok := find[protocol.StreamErrorEvent](evs)
	if !ok || se.Message != "Reconnecting... 1/2" {
		t.Errorf("stream_error = %+v (found %v) in %v", se, ok, types(evs))
	}
	tc, _ := find[protocol.TurnCompleteEvent](evs)
	if tc.LastAgentMessage == nil || *tc.LastAgentMessage != "ok" {
		t.Errorf("last message = %v", tc.LastAgentMessage)
	}
}

func TestFatalError(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(testkit.Status(400))
	h.say("hi")
	evs := h.until(turnEnd)
	want := []string{"session_configured", "task_started", "user_message", "error", "task_complete"}
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	e, _ := find[protocol.ErrorEvent](evs)
	if e.Message == "" {
		t.Error("error event without a message")
	}
	tc, _ := find[protocol.TurnCompleteEvent](evs)
	if tc.LastAgentMessage != nil {
		t.Errorf("last message after a failure = %q", *tc.LastAgentMessage)
	}
	// Like Codex 0.169, turn_complete carries the error: a rejected request is "other".
	if tc.Error == nil || tc.Error.Message != e.Message || string(tc.Error.CodexErrorInfo) != `"other"` {
		t.Errorf("turn_complete error = %+v, want the error event's message with codex_error_info other", tc.Error)
	}
	// The thread is still usable.
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "back"), testkit.Completed(testkit.Usage{})))
	h.say("again")
	if _, ok := find[protocol.AgentMessageEvent](h.until(turnEnd)); !ok {
		t.Error("no answer after the failed turn")
	}
}

func TestPersistent500(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.SetDefault(testkit.Status(500))
	h.say("hi")
	evs := h.until(turnEnd)
	if _, ok := find[protocol.ErrorEvent](evs); !ok {
		t.Errorf("no error event in %v", types(evs))
	}
	tc, ok := find[protocol.TurnCompleteEvent](evs)
	if !ok {
		t.Fatalf("turn did not complete: %v", types(evs))
	}
	if tc.Error == nil || string(tc.Error.CodexErrorInfo) != `"internal_server_error"` {
		t.Errorf("turn_complete error = %+v, want internal_server_error", tc.Error)
	}
}

func TestInterruptDuringStream(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.Stall(2, testkit.Created(), testkit.TextDelta("par"), testkit.AssistantMessage("m0", "partial"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "fresh"), testkit.Completed(testkit.Usage{})),
	)
	h.say("long")
	h.until(isType("agent_message_delta"))
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	ta, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent)
	if !ok || ta.Reason != protocol.AbortInterrupted {
		t.Fatalf("turn ended with %v", types(evs))
	}
	h.say("next")
	h.until(turnEnd)
	got := summarize(h.requestInput(1))[2:]
	want := []string{"user: long", "user: " + prompt.TurnAbortedOpen, "user: next"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request after interrupt (-want +got):\n%s", diff)
	}
}

func TestInterruptAbortsToolCall(t *testing.T) {
	started := make(chan struct{})
	slow := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		close(started)
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.ToolHandlers = map[string]tool.Handler{tools.NameShell: slow} }})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("go")
	<-started
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok {
		t.Fatalf("turn ended with %v", types(evs))
	}
	h.say("next")
	h.until(turnEnd)
	got := summarize(h.requestInput(1))[2:]
	want := []string{"user: go", "function_call shell c1", "function_call_output c1: aborted", "user: " + prompt.TurnAbortedOpen, "user: next"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request after interrupt (-want +got):\n%s", diff)
	}
}

func TestInterruptWithoutTurnIsHarmless(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.submit(protocol.InterruptOp{})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("hi")
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnCompleteEvent); !ok {
		t.Errorf("events %v", types(evs))
	}
}

// approvalTool asks for approval and reports the decision to the model.
func approvalTool(patch bool) fakeTool {
	return fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		req := tool.ApprovalRequest{Exec: &protocol.ExecApprovalRequestEvent{CallID: call.CallID, Command: []string{"rm", "x"}, Cwd: env.Cwd}}
		if patch {
			req = tool.ApprovalRequest{Patch: &protocol.ApplyPatchApprovalRequestEvent{CallID: call.CallID, Changes: map[string]protocol.FileChange{}}}
		}
		d, err := env.RequestApproval(ctx, req)
		if err != nil {
			return tool.Result{}, err
		}
		if d.Kind == protocol.DecisionAbort {
			return tool.Result{Output: "aborted by user", EndTurn: true}, nil
		}
		return tool.Result{Output: "decision " + string(d.Kind), Success: true}, nil
	}}
}

func TestApprovals(t *testing.T) {
	tests := []struct {
		name     string
		patch    bool
		decision protocol.ReviewDecisionKind
		wantEnd  string
		wantOut  string
	}{
		{"exec approved", false, protocol.DecisionApproved, "task_complete", "decision approved"},
		{"exec denied", false, protocol.DecisionDenied, "task_complete", "decision denied"},
		{"patch approved for session", true, protocol.DecisionApprovedForSession, "task_complete", "decision approved_for_session"},
		{"exec abort ends the turn", false, protocol.DecisionAbort, "turn_aborted", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
				c.ToolHandlers = map[string]tool.Handler{tools.NameShell: approvalTool(tc.patch)}
			}})
			h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})))
			if tc.decision != protocol.DecisionAbort {
				h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
			}
			id := h.say("go")
			evs := h.until(func(m protocol.EventMsg) bool {
				return m.EventType() == "exec_approval_request" || m.EventType() == "apply_patch_approval_request"
			})
			last := evs[len(evs)-1]
			if last.ID != id {
				t.Errorf("approval request id %q, want %q", last.ID, id)
			}
			d := protocol.ReviewDecision{Kind: tc.decision}
			if tc.patch {
				req := last.Msg.(protocol.ApplyPatchApprovalRequestEvent)
				if req.TurnID != id {
					t.Errorf("turn_id = %q", req.TurnID)
				}
				h.submit(protocol.PatchApprovalOp{ID: "c1", Decision: d})
			} else {
				req := last.Msg.(protocol.ExecApprovalRequestEvent)
				if req.TurnID != id {
					t.Errorf("turn_id = %q", req.TurnID)
				}
				h.submit(protocol.ExecApprovalOp{ID: "c1", Decision: d})
			}
			// A second answer finds no waiter: the first one won.
			h.submit(protocol.ExecApprovalOp{ID: "c1", Decision: protocol.ReviewDecision{Kind: protocol.DecisionDenied}})
			evs = h.until(turnEnd)
			if got := evs[len(evs)-1].Msg.EventType(); got != tc.wantEnd {
				t.Fatalf("turn ended with %s: %v", got, types(evs))
			}
			if tc.decision == protocol.DecisionAbort {
				// Abort interrupts the turn: the call is answered "aborted" for the model.
				h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "ok"), testkit.Completed(testkit.Usage{})))
				h.say("next")
				h.until(turnEnd)
				got := summarize(h.requestInput(1))[3:5]
				if diff := cmp.Diff([]string{"function_call shell c1", "function_call_output c1: aborted"}, got); diff != "" {
					t.Errorf("after abort (-want +got):\n%s", diff)
				}
			}
			if tc.wantOut != "" {
				got := summarize(h.requestInput(1))
				if want := "function_call_output c1: " + tc.wantOut; got[len(got)-1] != want {
					t.Errorf("model got %q, want %q", got[len(got)-1], want)
				}
			}
		})
	}
}

func TestInterruptWhileAwaitingApproval(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ToolHandlers = map[string]tool.Handler{tools.NameShell: approvalTool(false)}
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})))
	h.say("go")
	h.until(isType("exec_approval_request"))
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	if ta, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok || ta.Reason != protocol.AbortInterrupted {
		t.Fatalf("turn ended with %v", types(evs))
	}
	// A late answer is ignored.
	h.submit(protocol.ExecApprovalOp{ID: "c1", Decision: protocol.ReviewDecision{Kind: protocol.DecisionApproved}})
}

func TestSteeringJoinsRunningTurn(t *testing.T) {
	release := make(chan struct{})
	gate := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return tool.Result{Output: "ok", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.ToolHandlers = map[string]tool.Handler{tools.NameShell: gate} }})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "both"), testkit.Completed(testkit.Usage{})),
	)
	h.say("first")
	// Once the first request is out, the turn has taken its input; the tool then blocks.
	if _, err := h.srv.AwaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	h.say("also this")
	// The loop handles ops in order: once this is answered, the input above has joined
	// the turn.
	h.submit(protocol.GetHistoryEntryRequestOp{})
	h.until(isType("get_history_entry_response"))
	close(release)
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnCompleteEvent); !ok {
		t.Fatalf("events %v", types(evs))
	}
	got := summarize(h.requestInput(1))[2:]
	want := []string{"user: first", "function_call shell c1", "function_call_output c1: ok", "user: also this"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHistoryOpsAndShutdown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.submit(protocol.AddToHistoryOp{Text: "remember"})
	id := h.submit(protocol.GetHistoryEntryRequestOp{Offset: 3, LogID: 7})
	evs := h.until(isType("get_history_entry_response"))
	r := evs[len(evs)-1]
	resp := r.Msg.(protocol.GetHistoryEntryResponseEvent)
	if r.ID != id || resp.Offset != 3 || resp.LogID != 7 || resp.Entry != nil {
		t.Errorf("response = %+v (id %q)", resp, r.ID)
	}
	sid := h.submit(protocol.ShutdownOp{})
	evs = h.until(isType("shutdown_complete"))
	if evs[len(evs)-1].ID != sid {
		t.Errorf("shutdown_complete id %q, want %q", evs[len(evs)-1].ID, sid)
	}
	if _, err := h.thread.NextEvent(context.Background()); err != ErrThreadClosed {
		t.Errorf("NextEvent after shutdown = %v", err)
	}
	<-h.thread.Done()
	if _, err := h.thread.Submit(protocol.InterruptOp{}); err != ErrThreadClosed {
		t.Errorf("Submit after shutdown = %v", err)
	}
}

func TestRecorderSeesEventsFirst(t *testing.T) {
	rec := &memRecorder{}
	var h *harness
	h = newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.Recorder = rec }})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("hi")
	evs := h.until(turnEnd)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.events) < len(evs) {
		t.Fatalf("recorder saw %d events, reader %d", len(rec.events), len(evs))
	}
	for i := range evs {
		if rec.events[i].Msg.EventType() != evs[i].Msg.EventType() {
			t.Errorf("event %d: recorded %s, read %s", i, rec.events[i].Msg.EventType(), evs[i].Msg.EventType())
		}
	}
	var roles []string
	for _, it := range rec.items {
		if m, ok := it.(protocol.MessageItem); ok {
			roles = append(roles, m.Role)
		}
	}
	if diff := cmp.Diff([]string{"developer", "user", "user", "assistant"}, roles); diff != "" {
		t.Errorf("recorded items (-want +got):\n%s", diff)
	}
	if rec.flushes == 0 {
		t.Error("recorder never flushed")
	}
}

func TestStartThreadDiscoversAgents(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := writeFile(home+"/AGENTS.md", "global rules"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.Cwd = cwd
		c.Agents = &AgentsOptions{CodexHome: home, MaxBytes: prompt.DefaultProjectDocMaxBytes}
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("hi")
	h.until(turnEnd)
	in := h.requestInput(0)
	text := in[1]["content"].([]any)[0].(map[string]any)["text"].(string)
	if want := "# AGENTS.md instructions for " + cwd + "\n\n<INSTRUCTIONS>\nglobal rules\n</INSTRUCTIONS>"; text != want {
		t.Errorf("AGENTS block = %q, want %q", text, want)
	}
}

func TestStartThreadValidates(t *testing.T) {
	mgr := NewThreadManager(nil)
	for _, cfg := range []ThreadConfig{{}, {Model: "m"}, {Model: "m", Streamer: fakeStreamer{}}} {
		if _, err := mgr.StartThread(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "start thread") {
			t.Errorf("StartThread(%+v) err = %v", cfg, err)
		}
	}
}

func TestManagerLookup(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	if got, ok := h.mgr.GetThread(h.thread.ID()); !ok || got != h.thread {
		t.Error("GetThread did not find the thread")
	}
	if _, ok := h.mgr.RemoveThread(h.thread.ID()); !ok {
		t.Error("RemoveThread did not find the thread")
	}
	if _, ok := h.mgr.GetThread(h.thread.ID()); ok {
		t.Error("thread still listed after RemoveThread")
	}
	// Removed threads are not shut down by the manager; do it here.
	h.submit(protocol.ShutdownOp{})
	h.until(isType("shutdown_complete"))
}

func TestOutputSchemaIsPerTurn(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", `{"a":1}`), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "plain"), testkit.Completed(testkit.Usage{})),
	)
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"],"additionalProperties":false}`)
	h.submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("json please")}, FinalOutputJSONSchema: schema})
	h.until(turnEnd)
	h.say("now plain")
	h.until(turnEnd)
	format := func(i int) any {
		var body map[string]any
		if err := json.Unmarshal(h.srv.Requests()[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		text, _ := body["text"].(map[string]any)
		return text["format"]
	}
	if format(0) == nil {
		t.Error("first turn sent no text.format")
	}
	if f := format(1); f != nil {
		t.Errorf("second turn still sends the schema: %v", f)
	}
}

func TestInstructionsField(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.InstructionsField = true
		c.BaseInstructions = "custom base"
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})))
	h.say("hi")
	h.until(turnEnd)
	var body map[string]any
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["instructions"] != "custom base" {
		t.Errorf("instructions = %v", body["instructions"])
	}
	if got := summarize(h.requestInput(0)); got[0] != "developer: <permissions instructions>" {
		t.Errorf("input starts with %q", got[0])
	}
}

// TestTurnEventShapes pins the JSON of a plain turn's bookkeeping events against the lines
// Codex 0.169 wrote to its rollout for the same script (ids and times replaced).
func TestTurnEventShapes(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ModelInfo.ContextWindow = 272000
		c.ModelInfo.EffectiveContextWindowPercent = 95
		c.TurnTrigger = "exec"
	}})
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "hello"), testkit.Completed(testkit.Usage{Input: 10, Output: 2})))
	id := h.say("hi")
	evs := h.until(turnEnd)
	norm := func(m protocol.EventMsg) string {
		b, err := protocol.MarshalEventMsg(m)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), id, "TURN")
		for _, k := range []string{"started_at", "completed_at", "duration_ms", "time_to_first_token_ms"} {
			s = regexpReplace(s, `"`+k+`":\d+`, `"`+k+`":0`)
		}
		return s
	}
	ts, _ := find[protocol.TurnStartedEvent](evs)
	tok, _ := find[protocol.TokenCountEvent](evs)
	tc, _ := find[protocol.TurnCompleteEvent](evs)
	want := []string{
		`{"type":"task_started","turn_attribution":{"turn_id":"TURN","turn_trigger":"exec","parent_turn_id":null,"initiating_agent_path":null,"root_turn_id":"TURN"},"turn_id":"TURN","root_turn_id":"TURN","started_at":0,"model_context_window":258400,"collaboration_mode_kind":"default"}`,
		`{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0,"total_tokens":12},"last_token_usage":{"input_tokens":10,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0,"total_tokens":12},"last_usage_includes_reasoning":false,"model_context_window":258400},"rate_limits":{"limit_id":"codex","limit_name":null,"primary":null,"secondary":null,"credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,"rate_limit_reached_type":null}}`,
		`{"type":"task_complete","root_turn_id":"TURN","turn_id":"TURN","last_agent_message":"hello","started_at":0,"completed_at":0,"duration_ms":0,"time_to_first_token_ms":0}`,
	}
	got := []string{norm(ts), norm(tok), norm(tc)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-codex +ours):\n%s", diff)
	}
}

// TestInterruptDoesNotWaitForStuckTool: a tool that ignores cancellation cannot hold the
// turn open; the turn is reported aborted and the tool's late result is dropped.
func TestInterruptDoesNotWaitForStuckTool(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	stuck := fakeTool{name: "shell", handle: func(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
		close(started)
		<-release // ignores ctx on purpose
		env.Emit(protocol.WarningEvent{Message: "late"})
		return tool.Result{Output: "late result", Success: true}, nil
	}}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) { c.ToolHandlers = map[string]tool.Handler{tools.NameShell: stuck} }})
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "shell", `{}`), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("go")
	<-started
	h.submit(protocol.InterruptOp{})
	evs := h.until(turnEnd)
	if _, ok := evs[len(evs)-1].Msg.(protocol.TurnAbortedEvent); !ok {
		t.Fatalf("turn ended with %v", types(evs))
	}
	close(release)
	h.say("next")
	evs = h.until(turnEnd)
	if w, ok := find[protocol.WarningEvent](evs); ok {
		t.Errorf("late event of the aborted turn leaked: %+v", w)
	}
	got := summarize(h.requestInput(1))
	if !cmp.Equal(got[3:5], []string{"function_call shell c1", "function_call_output c1: aborted"}) {
		t.Errorf("history after abort = %v", got)
	}
}

func TestTurnStateEchoedWithinTurn(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	first := testkit.SSE(testkit.Created(), testkit.FunctionCall("c1", "nope", `{}`), testkit.Completed(testkit.Usage{}))
	first.Header = map[string]string{"x-codex-turn-state": "ts-1"}
	h.srv.Enqueue(first,
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "ok"), testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m2", "ok"), testkit.Completed(testkit.Usage{})),
	)
	h.say("one")
	h.until(turnEnd)
	h.say("two")
	h.until(turnEnd)
	reqs := h.srv.Requests()
	got := []string{reqs[0].Header.Get("x-codex-turn-state"), reqs[1].Header.Get("x-codex-turn-state"), reqs[2].Header.Get("x-codex-turn-state")}
	if diff := cmp.Diff([]string{"", "ts-1", ""}, got); diff != "" {
		t.Errorf("x-codex-turn-state per request (-want +got):\n%s", diff)
	}
}
