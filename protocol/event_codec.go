// The variant table: every EventMsg variant's tag, tagged MarshalJSON, and decoder.

package protocol

import "fmt"

// This file gives every EventMsg variant its tag, its tagged MarshalJSON, and its entry in
// DecodeEventMsg. Names Codex renamed are accepted in their old spelling on input.

func (ErrorEvent) EventType() string { return "error" }
func (ErrorEvent) isEventMsg()       {}

func (e ErrorEvent) MarshalJSON() ([]byte, error) {
	type plain ErrorEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (WarningEvent) EventType() string { return "warning" }
func (WarningEvent) isEventMsg()       {}

func (e WarningEvent) MarshalJSON() ([]byte, error) {
	type plain WarningEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (StreamErrorEvent) EventType() string { return "stream_error" }
func (StreamErrorEvent) isEventMsg()       {}

func (e StreamErrorEvent) MarshalJSON() ([]byte, error) {
	type plain StreamErrorEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (BackgroundEventEvent) EventType() string { return "background_event" }
func (BackgroundEventEvent) isEventMsg()       {}

func (e BackgroundEventEvent) MarshalJSON() ([]byte, error) {
	type plain BackgroundEventEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ModelRerouteEvent) EventType() string { return "model_reroute" }
func (ModelRerouteEvent) isEventMsg()       {}

func (e ModelRerouteEvent) MarshalJSON() ([]byte, error) {
	type plain ModelRerouteEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (DeprecationNoticeEvent) EventType() string { return "deprecation_notice" }
func (DeprecationNoticeEvent) isEventMsg()       {}

func (e DeprecationNoticeEvent) MarshalJSON() ([]byte, error) {
	type plain DeprecationNoticeEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ContextCompactedEvent) EventType() string { return "context_compacted" }
func (ContextCompactedEvent) isEventMsg()       {}

func (e ContextCompactedEvent) MarshalJSON() ([]byte, error) {
	type plain ContextCompactedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ThreadRolledBackEvent) EventType() string { return "thread_rolled_back" }
func (ThreadRolledBackEvent) isEventMsg()       {}

func (e ThreadRolledBackEvent) MarshalJSON() ([]byte, error) {
	type plain ThreadRolledBackEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TurnStartedEvent) EventType() string { return "task_started" }
func (TurnStartedEvent) isEventMsg()       {}

func (e TurnStartedEvent) MarshalJSON() ([]byte, error) {
	type plain TurnStartedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TurnCompleteEvent) EventType() string { return "task_complete" }
func (TurnCompleteEvent) isEventMsg()       {}

func (e TurnCompleteEvent) MarshalJSON() ([]byte, error) {
	type plain TurnCompleteEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TurnAbortedEvent) EventType() string { return "turn_aborted" }
func (TurnAbortedEvent) isEventMsg()       {}

func (e TurnAbortedEvent) MarshalJSON() ([]byte, error) {
	type plain TurnAbortedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TokenCountEvent) EventType() string { return "token_count" }
func (TokenCountEvent) isEventMsg()       {}

func (e TokenCountEvent) MarshalJSON() ([]byte, error) {
	type plain TokenCountEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentMessageEvent) EventType() string { return "agent_message" }
func (AgentMessageEvent) isEventMsg()       {}

func (e AgentMessageEvent) MarshalJSON() ([]byte, error) {
	type plain AgentMessageEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentMessageDeltaEvent) EventType() string { return "agent_message_delta" }
func (AgentMessageDeltaEvent) isEventMsg()       {}

func (e AgentMessageDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain AgentMessageDeltaEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (UserMessageEvent) EventType() string { return "user_message" }
func (UserMessageEvent) isEventMsg()       {}

func (e UserMessageEvent) MarshalJSON() ([]byte, error) {
	type plain UserMessageEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentReasoningEvent) EventType() string { return "agent_reasoning" }
func (AgentReasoningEvent) isEventMsg()       {}

func (e AgentReasoningEvent) MarshalJSON() ([]byte, error) {
	type plain AgentReasoningEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentReasoningDeltaEvent) EventType() string { return "agent_reasoning_delta" }
func (AgentReasoningDeltaEvent) isEventMsg()       {}

func (e AgentReasoningDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain AgentReasoningDeltaEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentReasoningRawContentEvent) EventType() string { return "agent_reasoning_raw_content" }
func (AgentReasoningRawContentEvent) isEventMsg()       {}

func (e AgentReasoningRawContentEvent) MarshalJSON() ([]byte, error) {
	type plain AgentReasoningRawContentEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentReasoningRawContentDeltaEvent) EventType() string {
	return "agent_reasoning_raw_content_delta"
}
func (AgentReasoningRawContentDeltaEvent) isEventMsg() {}

func (e AgentReasoningRawContentDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain AgentReasoningRawContentDeltaEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (AgentReasoningSectionBreakEvent) EventType() string { return "agent_reasoning_section_break" }
func (AgentReasoningSectionBreakEvent) isEventMsg()       {}

func (e AgentReasoningSectionBreakEvent) MarshalJSON() ([]byte, error) {
	type plain AgentReasoningSectionBreakEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (SessionConfiguredEvent) EventType() string { return "session_configured" }
func (SessionConfiguredEvent) isEventMsg()       {}

func (e SessionConfiguredEvent) MarshalJSON() ([]byte, error) {
	type plain SessionConfiguredEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (PlanUpdateEvent) EventType() string { return "plan_update" }
func (PlanUpdateEvent) isEventMsg()       {}

func (e PlanUpdateEvent) MarshalJSON() ([]byte, error) {
	type plain PlanUpdateEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TurnDiffEvent) EventType() string { return "turn_diff" }
func (TurnDiffEvent) isEventMsg()       {}

func (e TurnDiffEvent) MarshalJSON() ([]byte, error) {
	type plain TurnDiffEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (GetHistoryEntryResponseEvent) EventType() string { return "get_history_entry_response" }
func (GetHistoryEntryResponseEvent) isEventMsg()       {}

func (e GetHistoryEntryResponseEvent) MarshalJSON() ([]byte, error) {
	type plain GetHistoryEntryResponseEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ShutdownCompleteEvent) EventType() string { return "shutdown_complete" }
func (ShutdownCompleteEvent) isEventMsg()       {}

func (e ShutdownCompleteEvent) MarshalJSON() ([]byte, error) {
	type plain ShutdownCompleteEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (RawResponseItemEvent) EventType() string { return "raw_response_item" }
func (RawResponseItemEvent) isEventMsg()       {}

func (e RawResponseItemEvent) MarshalJSON() ([]byte, error) {
	type plain RawResponseItemEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ItemStartedEvent) EventType() string { return "item_started" }
func (ItemStartedEvent) isEventMsg()       {}

func (e ItemStartedEvent) MarshalJSON() ([]byte, error) {
	type plain ItemStartedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ItemCompletedEvent) EventType() string { return "item_completed" }
func (ItemCompletedEvent) isEventMsg()       {}

func (e ItemCompletedEvent) MarshalJSON() ([]byte, error) {
	type plain ItemCompletedEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ExecCommandBeginEvent) EventType() string { return "exec_command_begin" }
func (ExecCommandBeginEvent) isEventMsg()       {}

func (e ExecCommandBeginEvent) MarshalJSON() ([]byte, error) {
	type plain ExecCommandBeginEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ExecCommandOutputDeltaEvent) EventType() string { return "exec_command_output_delta" }
func (ExecCommandOutputDeltaEvent) isEventMsg()       {}

func (e ExecCommandOutputDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain ExecCommandOutputDeltaEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (TerminalInteractionEvent) EventType() string { return "terminal_interaction" }
func (TerminalInteractionEvent) isEventMsg()       {}

func (e TerminalInteractionEvent) MarshalJSON() ([]byte, error) {
	type plain TerminalInteractionEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ExecCommandEndEvent) EventType() string { return "exec_command_end" }
func (ExecCommandEndEvent) isEventMsg()       {}

func (e ExecCommandEndEvent) MarshalJSON() ([]byte, error) {
	type plain ExecCommandEndEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ExecApprovalRequestEvent) EventType() string { return "exec_approval_request" }
func (ExecApprovalRequestEvent) isEventMsg()       {}

func (e ExecApprovalRequestEvent) MarshalJSON() ([]byte, error) {
	type plain ExecApprovalRequestEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ApplyPatchApprovalRequestEvent) EventType() string { return "apply_patch_approval_request" }
func (ApplyPatchApprovalRequestEvent) isEventMsg()       {}

func (e ApplyPatchApprovalRequestEvent) MarshalJSON() ([]byte, error) {
	type plain ApplyPatchApprovalRequestEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (PatchApplyBeginEvent) EventType() string { return "patch_apply_begin" }
func (PatchApplyBeginEvent) isEventMsg()       {}

func (e PatchApplyBeginEvent) MarshalJSON() ([]byte, error) {
	type plain PatchApplyBeginEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (PatchApplyEndEvent) EventType() string { return "patch_apply_end" }
func (PatchApplyEndEvent) isEventMsg()       {}

func (e PatchApplyEndEvent) MarshalJSON() ([]byte, error) {
	type plain PatchApplyEndEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (ViewImageToolCallEvent) EventType() string { return "view_image_tool_call" }
func (ViewImageToolCallEvent) isEventMsg()       {}

func (e ViewImageToolCallEvent) MarshalJSON() ([]byte, error) {
	type plain ViewImageToolCallEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (WebSearchBeginEvent) EventType() string { return "web_search_begin" }
func (WebSearchBeginEvent) isEventMsg()       {}

func (e WebSearchBeginEvent) MarshalJSON() ([]byte, error) {
	type plain WebSearchBeginEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (WebSearchEndEvent) EventType() string { return "web_search_end" }
func (WebSearchEndEvent) isEventMsg()       {}

func (e WebSearchEndEvent) MarshalJSON() ([]byte, error) {
	type plain WebSearchEndEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (McpToolCallBeginEvent) EventType() string { return "mcp_tool_call_begin" }
func (McpToolCallBeginEvent) isEventMsg()       {}

func (e McpToolCallBeginEvent) MarshalJSON() ([]byte, error) {
	type plain McpToolCallBeginEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (McpToolCallEndEvent) EventType() string { return "mcp_tool_call_end" }
func (McpToolCallEndEvent) isEventMsg()       {}

func (e McpToolCallEndEvent) MarshalJSON() ([]byte, error) {
	type plain McpToolCallEndEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (McpStartupUpdateEvent) EventType() string { return "mcp_startup_update" }
func (McpStartupUpdateEvent) isEventMsg()       {}

func (e McpStartupUpdateEvent) MarshalJSON() ([]byte, error) {
	type plain McpStartupUpdateEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (McpStartupCompleteEvent) EventType() string { return "mcp_startup_complete" }
func (McpStartupCompleteEvent) isEventMsg()       {}

func (e McpStartupCompleteEvent) MarshalJSON() ([]byte, error) {
	type plain McpStartupCompleteEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

func (McpListToolsResponseEvent) EventType() string { return "mcp_list_tools_response" }
func (McpListToolsResponseEvent) isEventMsg()       {}

func (e McpListToolsResponseEvent) MarshalJSON() ([]byte, error) {
	type plain McpListToolsResponseEvent
	return marshalTagged("type", e.EventType(), plain(e))
}

// eventDecoders is the variant table: one line per tag (old spellings Codex renamed are
// accepted too). Adding an event is one line here plus its type's three methods above.
var eventDecoders = map[string]func([]byte) (EventMsg, error){
	"error":                             decodeEventAs[ErrorEvent],
	"warning":                           decodeEventAs[WarningEvent],
	"stream_error":                      decodeEventAs[StreamErrorEvent],
	"background_event":                  decodeEventAs[BackgroundEventEvent],
	"deprecation_notice":                decodeEventAs[DeprecationNoticeEvent],
	"model_reroute":                     decodeEventAs[ModelRerouteEvent],
	"context_compacted":                 decodeEventAs[ContextCompactedEvent],
	"thread_rolled_back":                decodeEventAs[ThreadRolledBackEvent],
	"thread_goal_updated":               decodeEventAs[ThreadGoalUpdatedEvent],
	"entered_review_mode":               decodeEventAs[EnteredReviewModeEvent],
	"plan_delta":                        decodeEventAs[PlanDeltaEvent],
	"exited_review_mode":                decodeEventAs[ExitedReviewModeEvent],
	"task_started":                      decodeEventAs[TurnStartedEvent],
	"turn_started":                      decodeEventAs[TurnStartedEvent],
	"task_complete":                     decodeEventAs[TurnCompleteEvent],
	"turn_complete":                     decodeEventAs[TurnCompleteEvent],
	"turn_aborted":                      decodeEventAs[TurnAbortedEvent],
	"token_count":                       decodeEventAs[TokenCountEvent],
	"agent_message":                     decodeEventAs[AgentMessageEvent],
	"agent_message_delta":               decodeEventAs[AgentMessageDeltaEvent],
	"user_message":                      decodeEventAs[UserMessageEvent],
	"agent_reasoning":                   decodeEventAs[AgentReasoningEvent],
	"agent_reasoning_delta":             decodeEventAs[AgentReasoningDeltaEvent],
	"agent_reasoning_raw_content":       decodeEventAs[AgentReasoningRawContentEvent],
	"agent_reasoning_raw_content_delta": decodeEventAs[AgentReasoningRawContentDeltaEvent],
	"agent_reasoning_section_break":     decodeEventAs[AgentReasoningSectionBreakEvent],
	"session_configured":                decodeEventAs[SessionConfiguredEvent],
	"plan_update":                       decodeEventAs[PlanUpdateEvent],
	"turn_diff":                         decodeEventAs[TurnDiffEvent],
	"get_history_entry_response":        decodeEventAs[GetHistoryEntryResponseEvent],
	"shutdown_complete":                 decodeEventAs[ShutdownCompleteEvent],
	"raw_response_item":                 decodeEventAs[RawResponseItemEvent],
	"item_started":                      decodeEventAs[ItemStartedEvent],
	"item_completed":                    decodeEventAs[ItemCompletedEvent],
	"exec_command_begin":                decodeEventAs[ExecCommandBeginEvent],
	"exec_command_output_delta":         decodeEventAs[ExecCommandOutputDeltaEvent],
	"terminal_interaction":              decodeEventAs[TerminalInteractionEvent],
	"exec_command_end":                  decodeEventAs[ExecCommandEndEvent],
	"exec_approval_request":             decodeEventAs[ExecApprovalRequestEvent],
	"apply_patch_approval_request":      decodeEventAs[ApplyPatchApprovalRequestEvent],
	"request_user_input":                decodeEventAs[RequestUserInputEvent],
	"patch_apply_begin":                 decodeEventAs[PatchApplyBeginEvent],
	"patch_apply_end":                   decodeEventAs[PatchApplyEndEvent],
	"view_image_tool_call":              decodeEventAs[ViewImageToolCallEvent],
	"web_search_begin":                  decodeEventAs[WebSearchBeginEvent],
	"web_search_end":                    decodeEventAs[WebSearchEndEvent],
	"mcp_tool_call_begin":               decodeEventAs[McpToolCallBeginEvent],
	"mcp_tool_call_end":                 decodeEventAs[McpToolCallEndEvent],
	"mcp_startup_update":                decodeEventAs[McpStartupUpdateEvent],
	"mcp_startup_complete":              decodeEventAs[McpStartupCompleteEvent],
	"mcp_list_tools_response":           decodeEventAs[McpListToolsResponseEvent],
	"hook_started":                      decodeEventAs[HookStartedEvent],
	"hook_completed":                    decodeEventAs[HookCompletedEvent],
}

func decodeEventAs[T EventMsg](data []byte) (EventMsg, error) {
	return decodeInto[T](data)
}

// DecodeEventMsg reads one event message. An unknown "type" is an *UnknownVariantError
// naming it.
func DecodeEventMsg(data []byte) (EventMsg, error) {
	tag, err := readTag(data, "type")
	if err != nil {
		return nil, fmt.Errorf("event msg: %w", err)
	}
	decode, ok := eventDecoders[tag]
	if !ok {
		return nil, &UnknownVariantError{Enum: "EventMsg", Variant: tag}
	}
	msg, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("event msg %s: %w", tag, err)
	}
	return msg, nil
}
