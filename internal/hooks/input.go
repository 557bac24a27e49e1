package hooks

import (
	"encoding/json"
)

// Input is what a hook is told; which fields are sent depends on Event (see payload).
type Input struct {
	Event          Event
	SessionID      string
	TurnID         string
	TranscriptPath string
	Cwd            string
	Model          string
	PermissionMode string

	Source string
	Prompt string

	ToolName     string
	ToolInput    json.RawMessage
	ToolResponse string
	ToolUseID    string

	StopHookActive       bool
	LastAssistantMessage *string
}

// common are the fields every event's JSON starts with, in Codex's order.
type common struct {
	SessionID      string  `json:"session_id"`
	TurnID         *string `json:"turn_id,omitempty"`
	TranscriptPath *string `json:"transcript_path"`
	Cwd            string  `json:"cwd"`
	HookEventName  Event   `json:"hook_event_name"`
	Model          string  `json:"model"`
	PermissionMode string  `json:"permission_mode"`
}

// payload is the event JSON written to the hook's stdin, one line, keys in Codex's order.
func (in Input) payload() ([]byte, error) {
	c := common{SessionID: in.SessionID, Cwd: in.Cwd, HookEventName: in.Event, Model: in.Model, PermissionMode: in.PermissionMode}
	if in.TranscriptPath != "" {
		c.TranscriptPath = &in.TranscriptPath
	}
	if in.Event != SessionStart {
		c.TurnID = &in.TurnID
	}
	toolInput := in.ToolInput
	if len(toolInput) == 0 {
		toolInput = json.RawMessage("{}")
	}
	switch in.Event {
	case SessionStart:
		return json.Marshal(struct {
			common
			Source string `json:"source"`
		}{c, in.Source})
	case UserPromptSubmit:
		return json.Marshal(struct {
			common
			Prompt string `json:"prompt"`
		}{c, in.Prompt})
	case PreToolUse:
		return json.Marshal(struct {
			common
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
			ToolUseID string          `json:"tool_use_id"`
		}{c, in.ToolName, toolInput, in.ToolUseID})
	case PostToolUse:
		return json.Marshal(struct {
			common
			ToolName     string          `json:"tool_name"`
			ToolInput    json.RawMessage `json:"tool_input"`
			ToolResponse string          `json:"tool_response"`
			ToolUseID    string          `json:"tool_use_id"`
		}{c, in.ToolName, toolInput, in.ToolResponse, in.ToolUseID})
	default: // Stop
		return json.Marshal(struct {
			common
			StopHookActive       bool    `json:"stop_hook_active"`
			LastAssistantMessage *string `json:"last_assistant_message"`
		}{c, in.StopHookActive, in.LastAssistantMessage})
	}
}

// Subject is what a matcher is applied to: the tool name, the session source, or nothing
// (UserPromptSubmit and Stop ignore matchers).
func (in Input) Subject() (string, bool) {
	switch in.Event {
	case PreToolUse, PostToolUse:
		return in.ToolName, true
	case SessionStart:
		return in.Source, true
	}
	return "", false
}
