package acp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// replayStep is one line of a saved thread, in file order: a persisted event (messages,
// reasoning, turn boundaries), or a response item. A rollout keeps no tool begin and end
// events, only the calls and outputs the model saw, so the tool calls are replayed from those.
type replayStep struct {
	Event protocol.EventMsg
	Item  json.RawMessage
}

// responseItem is what a replay reads of a response item.
type responseItem struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	CallID    string          `json:"call_id"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	Action    struct {
		Command []string `json:"command"`
	} `json:"action"`
}

// replay sends a resumed thread's history as session/update notifications: the events
// through a fold of their own, the tool calls from their response items.
func (ss *session) replay(ctx context.Context, history []replayStep) {
	f := items.NewFold(items.FoldOptions{})
	r := renderer{s: ss, replaying: true}
	open := map[string]bool{} // calls replayed, waiting for their output
	for _, step := range history {
		if step.Event != nil {
			for _, ch := range f.Apply(step.Event) {
				r.change(ctx, ch)
			}
			continue
		}
		var it responseItem
		if json.Unmarshal(step.Item, &it) != nil {
			continue
		}
		switch it.Type {
		case "function_call", "custom_tool_call", "local_shell_call":
			if call, ok := replayedCall(it); ok {
				call.SessionUpdate, call.Status = "tool_call", "in_progress"
				open[it.CallID] = true
				r.send(ctx, call)
			}
		case "function_call_output", "custom_tool_call_output":
			if !open[it.CallID] {
				continue
			}
			delete(open, it.CallID)
			out := outputText(it.Output)
			r.send(ctx, toolCall{SessionUpdate: "tool_call_update", ToolCallID: it.CallID, Status: "completed",
				Content: []toolCallContent{fenced(out)}, RawOutput: map[string]any{"output": out}})
		}
	}
}

// replayedCall is the tool call a recorded call stands for: a command, a patch or an MCP
// tool; false for the engine's own tools (plans, questions), which show otherwise.
func replayedCall(it responseItem) (toolCall, bool) {
	switch {
	case it.Type == "local_shell_call":
		return commandCall(it.CallID, &commandView{argv: it.Action.Command}), true
	case it.Name == "apply_patch":
		patch := it.Input
		if it.Type == "function_call" {
			var a struct {
				Input string `json:"input"`
			}
			_ = json.Unmarshal([]byte(it.Arguments), &a)
			patch = a.Input
		}
		return patchText(it.CallID, patch), true
	case it.Name == "exec_command" || it.Name == "shell" || it.Name == "shell_command" || it.Name == "container.exec":
		var a struct {
			Cmd     string          `json:"cmd"`
			Command json.RawMessage `json:"command"`
			Workdir string          `json:"workdir"`
		}
		_ = json.Unmarshal([]byte(it.Arguments), &a)
		argv := []string{a.Cmd}
		if a.Cmd == "" {
			var list []string
			var line string
			if json.Unmarshal(a.Command, &list) == nil {
				argv = list
			} else if json.Unmarshal(a.Command, &line) == nil {
				argv = []string{line}
			}
		}
		call := commandCall(it.CallID, &commandView{argv: argv, cwd: a.Workdir})
		call.Title = strings.Join(argv, " ")
		call.RawInput = json.RawMessage(it.Arguments)
		return call, true
	case strings.Contains(it.Name, "__"): // an MCP tool: mcp__server__tool
		return toolCall{ToolCallID: it.CallID, Kind: "other", Title: it.Name, RawInput: json.RawMessage(orNull(it.Arguments))}, true
	}
	return toolCall{}, false
}

// patchText is a recorded patch's tool call: its files as locations, the patch as content.
func patchText(id, patch string) toolCall {
	call := toolCall{ToolCallID: id, Kind: "edit", RawInput: map[string]string{"patch": patch}}
	var names []string
	for _, line := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				names = append(names, filepath.Base(p))
				call.Locations = append(call.Locations, location{Path: p})
			}
		}
	}
	call.Title = "Edit " + strings.Join(names, ", ")
	t := text("```diff\n" + patch + "\n```")
	call.Content = []toolCallContent{{Type: "content", Content: &t}}
	return call
}

// outputText is a call's output: a string, or the text parts of a content list.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}
