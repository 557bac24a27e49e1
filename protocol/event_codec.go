// The variant table below is kept by hand: one block per EventMsg variant.

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

// DecodeEventMsg reads one event message. An unknown "type" is an *UnknownVariantError
// naming it.
func DecodeEventMsg(data []byte) (EventMsg, error) {
	tag, err := readTag(data, "type")
	if err != nil {
		return nil, fmt.Errorf("event msg: %w", err)
	}
	var msg EventMsg
	switch tag {
	case "error":
		msg, err = decodeInto[ErrorEvent](data)
	case "warning":
		msg, err = decodeInto[WarningEvent](data)
	case "stream_error":
		msg, err = decodeInto[StreamErrorEvent](data)
	case "background_event":
		msg, err = decodeInto[BackgroundEventEvent](data)
	case "deprecation_notice":
		msg, err = decodeInto[DeprecationNoticeEvent](data)
	case "context_compacted":
		msg, err = decodeInto[ContextCompactedEvent](data)
	case "thread_rolled_back":
		msg, err = decodeInto[ThreadRolledBackEvent](data)
	case "task_started", "turn_started":
		msg, err = decodeInto[TurnStartedEvent](data)
	case "task_complete", "turn_complete":
		msg, err = decodeInto[TurnCompleteEvent](data)
	case "turn_aborted":
		msg, err = decodeInto[TurnAbortedEvent](data)
	case "token_count":
		msg, err = decodeInto[TokenCountEvent](data)
	case "agent_message":
		msg, err = decodeInto[AgentMessageEvent](data)
	case "agent_message_delta":
		msg, err = decodeInto[AgentMessageDeltaEvent](data)
	case "user_message":
		msg, err = decodeInto[UserMessageEvent](data)
	case "agent_reasoning":
		msg, err = decodeInto[AgentReasoningEvent](data)
	case "agent_reasoning_delta":
		msg, err = decodeInto[AgentReasoningDeltaEvent](data)
	case "agent_reasoning_raw_content":
		msg, err = decodeInto[AgentReasoningRawContentEvent](data)
	case "agent_reasoning_raw_content_delta":
		msg, err = decodeInto[AgentReasoningRawContentDeltaEvent](data)
	case "agent_reasoning_section_break":
		msg, err = decodeInto[AgentReasoningSectionBreakEvent](data)
	case "session_configured":
		msg, err = decodeInto[SessionConfiguredEvent](data)
	case "plan_update":
		msg, err = decodeInto[PlanUpdateEvent](data)
	case "turn_diff":
		msg, err = decodeInto[TurnDiffEvent](data)
	case "get_history_entry_response":
		msg, err = decodeInto[GetHistoryEntryResponseEvent](data)
	case "shutdown_complete":
		msg, err = decodeInto[ShutdownCompleteEvent](data)
	case "raw_response_item":
		msg, err = decodeInto[RawResponseItemEvent](data)
	case "item_started":
		msg, err = decodeInto[ItemStartedEvent](data)
	case "item_completed":
		msg, err = decodeInto[ItemCompletedEvent](data)
	case "exec_command_begin":
		msg, err = decodeInto[ExecCommandBeginEvent](data)
	case "exec_command_output_delta":
		msg, err = decodeInto[ExecCommandOutputDeltaEvent](data)
	case "terminal_interaction":
		msg, err = decodeInto[TerminalInteractionEvent](data)
	case "exec_command_end":
		msg, err = decodeInto[ExecCommandEndEvent](data)
	case "exec_approval_request":
		msg, err = decodeInto[ExecApprovalRequestEvent](data)
	case "apply_patch_approval_request":
		msg, err = decodeInto[ApplyPatchApprovalRequestEvent](data)
	case "patch_apply_begin":
		msg, err = decodeInto[PatchApplyBeginEvent](data)
	case "patch_apply_end":
		msg, err = decodeInto[PatchApplyEndEvent](data)
	case "view_image_tool_call":
		msg, err = decodeInto[ViewImageToolCallEvent](data)
	case "web_search_begin":
		msg, err = decodeInto[WebSearchBeginEvent](data)
	case "web_search_end":
		msg, err = decodeInto[WebSearchEndEvent](data)
	case "mcp_tool_call_begin":
		msg, err = decodeInto[McpToolCallBeginEvent](data)
	case "mcp_tool_call_end":
		msg, err = decodeInto[McpToolCallEndEvent](data)
	case "mcp_startup_update":
		msg, err = decodeInto[McpStartupUpdateEvent](data)
	case "mcp_startup_complete":
		msg, err = decodeInto[McpStartupCompleteEvent](data)
	case "mcp_list_tools_response":
		msg, err = decodeInto[McpListToolsResponseEvent](data)
	default:
		return nil, &UnknownVariantError{Enum: "EventMsg", Variant: tag}
	}
	if err != nil {
		return nil, fmt.Errorf("event msg %s: %w", tag, err)
	}
	return msg, nil
}
