package protocol

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func ptr[T any](v T) *T { return &v }

// goldenCase is one value whose JSON is pinned in testdata/<name>.json. decode reads the
// file back so the round trip is checked too.
type goldenCase struct {
	name   string
	value  any
	decode func([]byte) (any, error)
}

func decodeEvent(b []byte) (any, error) {
	var e Event
	err := json.Unmarshal(b, &e)
	return e, err
}

func decodeSubmission(b []byte) (any, error) {
	var s Submission
	err := json.Unmarshal(b, &s)
	return s, err
}

func decodeItem(b []byte) (any, error) { return DecodeResponseItem(b) }

func decodeAs[T any](b []byte) (any, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

func ev(msg EventMsg) Event { return Event{ID: "sub-1", Msg: msg} }

func sub(op Op) Submission { return Submission{ID: "sub-1", Op: op} }

var addPatch = map[string]FileChange{
	"/repo/new.txt": {Kind: FileAdd, Content: "hello\n"},
	"/repo/old.txt": {Kind: FileDelete, Content: "bye\n"},
	"/repo/mod.txt": {Kind: FileUpdate, UnifiedDiff: "@@ -1 +1 @@\n-a\n+b\n", MovePath: ptr("/repo/moved.txt")},
}

func goldenCases() []goldenCase {
	usage := TokenUsage{InputTokens: 100, CachedInputTokens: 20, OutputTokens: 7, ReasoningOutputTokens: 3, TotalTokens: 107}
	parsed := []ParsedCommand{{Type: "unknown", Cmd: "echo hi"}}
	allParsed := []ParsedCommand{
		{Type: "read", Cmd: "cat a.go", Name: "a.go", Path: ptr("/repo/a.go")},
		{Type: "list_files", Cmd: "ls"},
		{Type: "search", Cmd: "rg foo src", Query: ptr("foo"), Path: ptr("src")},
		{Type: "unknown", Cmd: "make"},
	}
	cases := []goldenCase{
		// Events.
		{"event_session_configured", ev(SessionConfiguredEvent{SessionID: "67e55044-10b1-426f-9247-bb680e5fe0c8", Model: "codex-mini-latest"}), decodeEvent},
		{"event_session_configured_full", ev(SessionConfiguredEvent{
			SessionID: "67e55044-10b1-426f-9247-bb680e5fe0c8", Model: "gpt-5.5", ModelProviderID: "openai",
			ApprovalPolicy: &ApprovalNever, SandboxPolicy: &SandboxPolicy{Mode: SandboxWorkspaceWrite, WritableRoots: []string{"/extra"}},
			Cwd: "/repo", ReasoningEffort: "medium", HistoryLogID: 7, HistoryEntryCount: 3,
			InitialMessages: []EventMsgJSON{{Msg: UserMessageEvent{Message: "hi"}}},
			RolloutPath:     "/home/u/.codex/sessions/rollout.jsonl",
		}), decodeEvent},
		{"event_task_started", ev(TurnStartedEvent{
			TurnAttribution: &TurnAttribution{TurnID: "turn-1", TurnTrigger: "exec", RootTurnID: "turn-1"},
			TurnID:          "turn-1", RootTurnID: "turn-1", StartedAt: ptr[int64](1795335873),
			ModelContextWindow: ptr[int64](258400), CollaborationModeKind: "default",
		}), decodeEvent},
		{"event_task_complete", ev(TurnCompleteEvent{
			RootTurnID: "turn-1", TurnID: "turn-1", LastAgentMessage: ptr("Hello there!"),
			StartedAt: ptr[int64](1795335873), CompletedAt: ptr[int64](1795335873), DurationMs: ptr[int64](96), TimeToFirstTokenMs: ptr[int64](79),
		}), decodeEvent},
		{"event_task_complete_minimal", ev(TurnCompleteEvent{TurnID: "turn-1"}), decodeEvent},
		{"event_turn_aborted", ev(TurnAbortedEvent{TurnID: "turn-1", Reason: AbortInterrupted}), decodeEvent},
		{"event_token_count", ev(TokenCountEvent{
			Info:       &TokenUsageInfo{TotalTokenUsage: usage, LastTokenUsage: usage, ModelContextWindow: ptr[int64](258400)},
			RateLimits: &RateLimitSnapshot{LimitID: ptr("codex"), Primary: &RateLimitWindow{UsedPercent: 12.5, WindowMinutes: ptr[int64](300), ResetsAt: ptr[int64](1795339999)}},
		}), decodeEvent},
		{"event_token_count_empty", ev(TokenCountEvent{}), decodeEvent},
		{"event_agent_message", ev(AgentMessageEvent{Message: "Hello there!"}), decodeEvent},
		{"event_agent_message_delta", ev(AgentMessageDeltaEvent{Delta: "Hel"}), decodeEvent},
		{"event_user_message", ev(UserMessageEvent{Message: "say hi", LocalImages: []string{}, TextElements: []json.RawMessage{}}), decodeEvent},
		{"event_agent_reasoning", ev(AgentReasoningEvent{Text: "**Thinking**"}), decodeEvent},
		{"event_agent_reasoning_delta", ev(AgentReasoningDeltaEvent{Delta: "Thi"}), decodeEvent},
		{"event_agent_reasoning_raw_content", ev(AgentReasoningRawContentEvent{Text: "raw"}), decodeEvent},
		{"event_agent_reasoning_raw_content_delta", ev(AgentReasoningRawContentDeltaEvent{Delta: "r"}), decodeEvent},
		{"event_agent_reasoning_section_break", ev(AgentReasoningSectionBreakEvent{ItemID: "rs_1", SummaryIndex: 1}), decodeEvent},
		{"event_error", ev(ErrorEvent{Message: "boom"}), decodeEvent},
		{"event_error_info", ev(ErrorEvent{Message: "too long", CodexErrorInfo: json.RawMessage(`"context_window_exceeded"`)}), decodeEvent},
		{"event_stream_error", ev(StreamErrorEvent{Message: "Reconnecting... 1/5", AdditionalDetails: ptr("timeout")}), decodeEvent},
		{"event_warning", ev(WarningEvent{Message: "careful"}), decodeEvent},
		{"event_model_reroute", ev(ModelRerouteEvent{FromModel: "gpt-5.5", ToModel: "gpt-5.4", Reason: ModelRerouteHighRiskCyberActivity}), decodeEvent},
		{"event_background_event", ev(BackgroundEventEvent{Message: "note"}), decodeEvent},
		{"event_deprecation_notice", ev(DeprecationNoticeEvent{Summary: "old flag", Details: ptr("use the new one")}), decodeEvent},
		{"event_context_compacted", ev(ContextCompactedEvent{}), decodeEvent},
		{"event_thread_rolled_back", ev(ThreadRolledBackEvent{NumTurns: 2}), decodeEvent},
		{"event_thread_goal_updated", ev(ThreadGoalUpdatedEvent{Goal: json.RawMessage(`{"objective":"ship it","status":"complete"}`)}), decodeEvent},
		{"event_entered_review_mode", ev(EnteredReviewModeEvent{Target: ReviewTarget{Type: ReviewBaseBranch, Branch: "main"}, UserFacingHint: "changes against 'main'"}), decodeEvent},
		{"event_exited_review_mode", ev(ExitedReviewModeEvent{ReviewOutput: &ReviewOutputEvent{Findings: []ReviewFinding{{Title: "[P1] Fix it", Body: "Because.", ConfidenceScore: 0.8, Priority: ptr(1),
			CodeLocation: ReviewCodeLocation{AbsoluteFilePath: "/repo/a.go", LineRange: ReviewLineRange{Start: 1, End: 2}}}}, OverallCorrectness: "patch is incorrect", OverallExplanation: "It breaks.", OverallConfidenceScore: 0.7}}), decodeEvent},
		{"event_exited_review_mode_none", ev(ExitedReviewModeEvent{}), decodeEvent},
		{"event_plan_delta", ev(PlanDeltaEvent{ThreadID: "th", TurnID: "turn-1", ItemID: "turn-1-plan", Delta: "# Plan\n"}), decodeEvent},
		{"event_shutdown_complete", ev(ShutdownCompleteEvent{}), decodeEvent},
		{"event_plan_update", ev(PlanUpdateEvent{Explanation: ptr("why"), Plan: []PlanItem{{Step: "one", Status: PlanCompleted}, {Step: "two", Status: PlanInProgress}, {Step: "three", Status: PlanPending}}}), decodeEvent},
		{"event_turn_diff", ev(TurnDiffEvent{UnifiedDiff: "diff --git a/x b/x\n"}), decodeEvent},
		{"event_get_history_entry_response", ev(GetHistoryEntryResponseEvent{Offset: 1, LogID: 9, Entry: &HistoryEntry{ConversationID: "c", Ts: 5, Text: "t"}}), decodeEvent},
		{"event_get_history_entry_response_empty", ev(GetHistoryEntryResponseEvent{Offset: 1, LogID: 9}), decodeEvent},
		{"event_exec_command_begin", ev(ExecCommandBeginEvent{CallID: "call_1", TurnID: "turn-1", Command: []string{"/bin/bash", "-lc", "echo hi"}, Cwd: "/repo", ParsedCmd: parsed, Source: SourceAgent}), decodeEvent},
		{"event_exec_command_output_delta", ev(ExecCommandOutputDeltaEvent{CallID: "call_1", Stream: StreamStdout, Chunk: []byte("hi\n")}), decodeEvent},
		{"event_exec_command_end", ev(ExecCommandEndEvent{
			CallID: "call_1", TurnID: "turn-1", Command: []string{"/bin/bash", "-lc", "echo hi"}, Cwd: "/repo", ParsedCmd: parsed, Source: SourceAgent,
			Stdout: "hi\n", AggregatedOutput: "hi\n", ExitCode: 0, Duration: Duration(324 * time.Millisecond), FormattedOutput: "hi\n",
		}), decodeEvent},
		{"event_exec_command_begin_parsed", ev(ExecCommandBeginEvent{CallID: "call_2", TurnID: "turn-1", Command: []string{"bash", "-lc", "cat a.go"}, Cwd: "/repo", ParsedCmd: allParsed, Source: SourceAgent}), decodeEvent},
		{"event_terminal_interaction", ev(TerminalInteractionEvent{CallID: "call_2", ProcessID: "1000", Stdin: "y\n"}), decodeEvent},
		{"event_exec_approval_request", ev(ExecApprovalRequestEvent{
			CallID: "call_1", TurnID: "turn-1", Command: []string{"rm", "-rf", "build"}, Cwd: "/repo", Reason: ptr("needs write access"),
			ProposedExecpolicyAmendment: []string{"rm", "-rf"}, ParsedCmd: parsed,
		}), decodeEvent},
		{"event_request_user_input", ev(RequestUserInputEvent{CallID: "call_q", TurnID: "turn-1", Questions: []RequestUserInputQuestion{
			{ID: "color", Header: "Color", Question: "Which color?", IsOther: true, Options: []RequestUserInputOption{{Label: "Red (Recommended)", Description: "Warm."}, {Label: "Blue", Description: "Cool."}}},
			{ID: "token", Header: "Token", Question: "Paste the token", IsSecret: true},
		}}), decodeEvent},
		{"event_apply_patch_approval_request", ev(ApplyPatchApprovalRequestEvent{CallID: "call_p", TurnID: "turn-1", Changes: addPatch, GrantRoot: ptr("/repo")}), decodeEvent},
		{"event_patch_apply_begin", ev(PatchApplyBeginEvent{CallID: "call_p", TurnID: "turn-1", AutoApproved: true, Changes: addPatch}), decodeEvent},
		{"event_patch_apply_end", ev(PatchApplyEndEvent{CallID: "call_p", TurnID: "turn-1", Stdout: "Success.\n", Success: true, Changes: addPatch, Status: PatchCompleted}), decodeEvent},
		{"event_hook_started", ev(HookStartedEvent{TurnID: ptr("turn-1"), Run: HookRunSummary{ID: "pre-tool-use:0:/home/.codex/hooks.json", EventName: "pre_tool_use", HandlerType: "command", ExecutionMode: "sync", Scope: "turn",
			SourcePath: "/home/.codex/hooks.json", Source: "user", Status: HookRunning, StartedAt: 1700000000, Entries: []HookOutputEntry{}}}), decodeEvent},
		{"event_hook_completed", ev(HookCompletedEvent{TurnID: ptr("turn-1"), Run: HookRunSummary{ID: "pre-tool-use:0:/home/.codex/hooks.json", EventName: "pre_tool_use", HandlerType: "command", ExecutionMode: "sync", Scope: "turn",
			SourcePath: "/home/.codex/hooks.json", Source: "user", Status: HookBlocked, StartedAt: 1700000000, CompletedAt: ptr(int64(1700000001)), DurationMs: ptr(int64(1005)),
			Entries: []HookOutputEntry{{Kind: "feedback", Text: "no shell today"}}}}), decodeEvent},
		{"event_view_image_tool_call", ev(ViewImageToolCallEvent{CallID: "call_v", Path: "/repo/a.png"}), decodeEvent},
		{"event_web_search_begin", ev(WebSearchBeginEvent{CallID: "ws_1"}), decodeEvent},
		{"event_web_search_end", ev(WebSearchEndEvent{CallID: "ws_1", Query: "go generics", Action: json.RawMessage(`{"type":"search","query":"go generics"}`)}), decodeEvent},
		{"event_mcp_tool_call_begin", ev(McpToolCallBeginEvent{CallID: "call_m", Invocation: McpInvocation{Server: "docs", Tool: "search", Arguments: json.RawMessage(`{"q":"x"}`)}}), decodeEvent},
		{"event_mcp_tool_call_end_ok", ev(McpToolCallEndEvent{CallID: "call_m", Invocation: McpInvocation{Server: "docs", Tool: "search", Arguments: json.RawMessage(`null`)}, Duration: Duration(1500 * time.Millisecond), Result: McpToolResult{Ok: json.RawMessage(`{"content":[{"type":"text","text":"found"}]}`)}}), decodeEvent},
		{"event_mcp_tool_call_end_err", ev(McpToolCallEndEvent{CallID: "call_m", Invocation: McpInvocation{Server: "docs", Tool: "search", Arguments: json.RawMessage(`null`)}, Result: McpToolResult{Err: ptr("timed out")}}), decodeEvent},
		{"event_mcp_startup_update", ev(McpStartupUpdateEvent{Server: "docs", Status: json.RawMessage(`{"state":"failed","error":"no such command"}`)}), decodeEvent},
		{"event_mcp_startup_complete", ev(McpStartupCompleteEvent{Ready: []string{"docs"}, Failed: []McpStartupFailure{{Server: "git", Error: "exit 1"}}, Cancelled: []string{}}), decodeEvent},
		{"event_mcp_list_tools_response", ev(McpListToolsResponseEvent{
			Tools:     map[string]json.RawMessage{"mcp__docs__search": json.RawMessage(`{"name":"search","inputSchema":{"type":"object"}}`)},
			Resources: map[string]json.RawMessage{}, ResourceTemplates: map[string]json.RawMessage{}, AuthStatuses: map[string]json.RawMessage{"docs": json.RawMessage(`"unsupported"`)},
		}), decodeEvent},
		{"event_raw_response_item", ev(RawResponseItemEvent{Item: ResponseItemJSON{Item: MessageItem{Role: "assistant", Content: []ContentItem{{Type: ContentOutputText, Text: "hi"}}}}}), decodeEvent},
		{"event_item_started", ev(ItemStartedEvent{ThreadID: "t", TurnID: "turn-1", Item: json.RawMessage(`{"type":"AgentMessage","id":"msg_1","content":[]}`)}), decodeEvent},
		{"event_item_completed", ev(ItemCompletedEvent{ThreadID: "t", TurnID: "turn-1", Item: json.RawMessage(`{"type":"AgentMessage","id":"msg_1","content":[{"type":"Text","text":"hi"}]}`)}), decodeEvent},

		// Ops.
		{"op_user_input", sub(UserInputOp{Items: []InputItem{TextInput("hi"), {Type: InputImage, ImageURL: "data:image/png;base64,AAAA"}, {Type: InputLocalImage, Path: "/tmp/a.png"}}}), decodeSubmission},
		{"op_user_input_schema", sub(UserInputOp{Items: []InputItem{TextInput("json please")}, FinalOutputJSONSchema: json.RawMessage(`{"type":"object"}`)}), decodeSubmission},
		{"op_user_turn", sub(UserTurnOp{
			Items: []InputItem{TextInput("hi")}, Cwd: "/repo", ApprovalPolicy: ApprovalOnRequest,
			SandboxPolicy: SandboxPolicy{Mode: SandboxWorkspaceWrite, NetworkAccess: true}, Model: "gpt-5.5", Effort: "high", Summary: "auto",
		}), decodeSubmission},
		{"op_override_turn_context", sub(OverrideTurnContextOp{Cwd: ptr("/other"), ApprovalPolicy: &ApprovalUntrusted, SandboxPolicy: &SandboxPolicy{Mode: SandboxReadOnly}, Model: ptr("gpt-5.5")}), decodeSubmission},
		{"op_override_turn_context_empty", sub(OverrideTurnContextOp{}), decodeSubmission},
		{"op_interrupt", sub(InterruptOp{}), decodeSubmission},
		{"op_exec_approval", sub(ExecApprovalOp{ID: "call_1", TurnID: "turn-1", Decision: ReviewDecision{Kind: DecisionApprovedForSession}}), decodeSubmission},
		{"op_exec_approval_amendment", sub(ExecApprovalOp{ID: "call_1", Decision: ReviewDecision{Kind: DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: []string{"npm", "test"}}}), decodeSubmission},
		{"op_patch_approval", sub(PatchApprovalOp{ID: "call_p", Decision: ReviewDecision{Kind: DecisionAbort}}), decodeSubmission},
		{"op_add_to_history", sub(AddToHistoryOp{Text: "hello"}), decodeSubmission},
		{"op_get_history_entry_request", sub(GetHistoryEntryRequestOp{Offset: 3, LogID: 42}), decodeSubmission},
		{"op_shutdown", sub(ShutdownOp{}), decodeSubmission},
		{"op_compact", sub(CompactOp{}), decodeSubmission},
		{"op_thread_rollback", sub(ThreadRollbackOp{NumTurns: 1}), decodeSubmission},
		{"op_inject_items", sub(InjectItemsOp{Items: []json.RawMessage{json.RawMessage(`{"type":"message","role":"user","content":[{"type":"input_text","text":"note"}]}`)}}), decodeSubmission},
		{"op_goal_turn", sub(GoalTurnOp{Items: []json.RawMessage{json.RawMessage(`{"type":"message","role":"user","content":[{"type":"input_text","text":"continue"}]}`)}}), decodeSubmission},
		{"op_list_mcp_tools", sub(ListMcpToolsOp{}), decodeSubmission},
		{"op_clean_background_terminals", sub(CleanBackgroundTerminalsOp{}), decodeSubmission},
		{"op_run_user_shell_command", sub(RunUserShellCommandOp{Command: "ls -la"}), decodeSubmission},
		{"op_override_collaboration_mode", sub(OverrideTurnContextOp{CollaborationMode: &CollaborationMode{Mode: ModePlan, Settings: CollaborationModeSettings{Model: "gpt-5.5", ReasoningEffort: ptr("medium")}}}), decodeSubmission},
		{"op_review_uncommitted", sub(ReviewOp{ReviewRequest: ReviewRequest{Target: ReviewTarget{Type: ReviewUncommitted}, UserFacingHint: "current changes"}}), decodeSubmission},
		{"op_review_commit", sub(ReviewOp{ReviewRequest: ReviewRequest{Target: ReviewTarget{Type: ReviewCommit, Sha: "470924b", Title: ptr("Fix")}}}), decodeSubmission},
		{"op_user_input_answer", sub(UserInputAnswerOp{ID: "turn-1", Response: RequestUserInputResponse{Answers: map[string]RequestUserInputAnswer{
			"color": {Answers: []string{"Blue", "user_note: darker"}}, "size": {Answers: []string{}}}}}), decodeSubmission},

		// Response items.
		{"item_message", MessageItem{Role: "user", Content: []ContentItem{{Type: ContentInputText, Text: "hi"}, {Type: ContentInputImage, ImageURL: "data:image/png;base64,AAAA"}}}, decodeItem},
		{"item_message_phase", MessageItem{Role: "assistant", Content: []ContentItem{{Type: ContentOutputText, Text: "done"}}, Phase: "final_answer"}, decodeItem},
		{"item_reasoning", ReasoningItem{Summary: []ReasoningSummary{{Type: "summary_text", Text: "**Plan**"}}, EncryptedContent: ptr("gAAAA")}, decodeItem},
		{"item_reasoning_content", ReasoningItem{Summary: []ReasoningSummary{}, Content: []ReasoningContent{{Type: "reasoning_text", Text: "raw"}}}, decodeItem},
		{"item_function_call", FunctionCallItem{Name: "exec_command", Arguments: `{"cmd":"ls"}`, CallID: "call_1"}, decodeItem},
		{"item_function_call_namespace", FunctionCallItem{Name: "search", Namespace: "mcp__docs", Arguments: `{}`, CallID: "call_2"}, decodeItem},
		{"item_function_call_output_text", FunctionCallOutputItem{CallID: "call_1", Output: FunctionCallOutputPayload{Content: "Exit code: 0\nOutput:\nhi\n"}}, decodeItem},
		{"item_function_call_output_items", FunctionCallOutputItem{CallID: "call_v", Output: FunctionCallOutputPayload{ContentItems: []ContentItem{{Type: ContentInputImage, ImageURL: "data:image/png;base64,AAAA"}}}}, decodeItem},
		{"item_custom_tool_call", CustomToolCallItem{CallID: "call_p", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"}, decodeItem},
		{"item_custom_tool_call_output", CustomToolCallOutputItem{CallID: "call_p", Output: FunctionCallOutputPayload{Content: "Success."}}, decodeItem},
		{"item_local_shell_call", LocalShellCallItem{CallID: ptr("call_l"), Status: "completed", Action: LocalShellAction{Type: "exec", Command: []string{"ls"}, Env: map[string]string{}}}, decodeItem},
		{"item_web_search_call_id", WebSearchCallItem{ID: "ws_0001", Status: ptr("completed"), Action: json.RawMessage(`{"type":"search","query":"golang generics"}`)}, decodeItem},
		{"item_web_search_call", WebSearchCallItem{Status: ptr("completed"), Action: json.RawMessage(`{"type":"search","query":"weather"}`)}, decodeItem},
		{"item_compaction", CompactionItem{EncryptedContent: "gAAAA"}, decodeItem},
		{"item_other", OtherItem{Raw: json.RawMessage(`{"type":"image_generation_call","id":"ig_1","result":"AAAA"}`)}, decodeItem},

		// Policies on their own.
		{"policy_approval_granular", AskForApproval{Mode: ApprovalModeGranular, Granular: &GranularApproval{SandboxApproval: true, McpElicitations: true}}, decodeAs[AskForApproval]},
		{"policy_sandbox_read_only", NewReadOnlyPolicy(), decodeAs[SandboxPolicy]},
		{"policy_sandbox_workspace_write", SandboxPolicy{Mode: SandboxWorkspaceWrite, WritableRoots: []string{"/tmp/x"}, NetworkAccess: true}, decodeAs[SandboxPolicy]},
		{"policy_sandbox_danger", SandboxPolicy{Mode: SandboxDangerFullAccess}, decodeAs[SandboxPolicy]},
		{"decision_timed_out", ReviewDecision{Kind: DecisionTimedOut}, decodeAs[ReviewDecision]},
		{"decision_denied_rejection", ReviewDecision{Kind: DecisionDenied, Rejection: "not now"}, decodeAs[ReviewDecision]},
		{"decision_approved_mcp_policy_amendment", ReviewDecision{Kind: DecisionApprovedMcpPolicyAmendment}, decodeAs[ReviewDecision]},
		{"decision_network_policy_amendment", ReviewDecision{Kind: DecisionNetworkPolicyAmendment, NetworkPolicyAmendment: &NetworkPolicyAmendment{Host: "example.com", Action: "allow"}}, decodeAs[ReviewDecision]},
	}
	return cases
}

// cmpOpts compares decoded values: raw JSON by its compact form, empty and nil alike.
var cmpOpts = cmp.Options{
	cmp.FilterValues(func(x, y any) bool {
		_, xr := x.(json.RawMessage)
		_, yr := y.(json.RawMessage)
		return !xr && !yr
	}, cmpopts.EquateEmpty()),
	cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().Type() == reflect.TypeFor[json.RawMessage]()
	}, cmp.Transformer("compactJSON", func(r json.RawMessage) string {
		var b bytes.Buffer
		if len(r) == 0 || json.Compact(&b, r) != nil {
			return "null"
		}
		return b.String()
	})),
}

func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			if seen[tc.name] {
				t.Fatalf("duplicate case name %s", tc.name)
			}
			seen[tc.name] = true
			got, err := Marshal(tc.value)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			path := filepath.Join("testdata", tc.name+".json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			want = bytes.TrimRight(want, "\n")
			if !bytes.Equal(got, want) {
				t.Errorf("marshal mismatch\n got: %s\nwant: %s", got, want)
			}
			back, err := tc.decode(want)
			if err != nil {
				t.Fatalf("decode golden: %v", err)
			}
			if diff := cmp.Diff(tc.value, back, cmpOpts); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionConfiguredExact pins the byte-exact shape the issue quotes.
func TestSessionConfiguredExact(t *testing.T) {
	e := Event{ID: "1234", Msg: SessionConfiguredEvent{SessionID: "67e55044-10b1-426f-9247-bb680e5fe0c8", Model: "codex-mini-latest"}}
	got, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"1234","msg":{"type":"session_configured","session_id":"67e55044-10b1-426f-9247-bb680e5fe0c8","model":"codex-mini-latest","history_log_id":0,"history_entry_count":0}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
