package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// renderer draws the fold's item changes as session/update notifications. Replaying a loaded
// thread it also draws the person's messages (live, the client sent them).
type renderer struct {
	s         *session
	replaying bool
	// streamed marks agent messages whose deltas went out, so their completion adds nothing.
	streamed map[string]bool
}

func (r *renderer) send(ctx context.Context, update any) { r.s.srv.notify(ctx, r.s.id, update) }

// reader reads the files an edit is shown against (see readText).
func (r *renderer) reader(ctx context.Context) func(string) (string, error) {
	return func(path string) (string, error) { return r.s.readText(ctx, path) }
}

func (r *renderer) change(ctx context.Context, ch items.Change) {
	switch it := ch.Body.(type) {
	case *items.AgentMessage:
		r.agentMessage(ctx, ch, it)
	case *items.Reasoning:
		if ch.Phase == items.Updated && ch.Delta.Kind == items.DeltaSummary && ch.Delta.Text != "" {
			r.send(ctx, contentChunk{SessionUpdate: "agent_thought_chunk", Content: text(ch.Delta.Text)})
		}
		if r.replaying && ch.Phase == items.Completed {
			if s := strings.Join(it.Summary(), "\n\n"); s != "" {
				r.send(ctx, contentChunk{SessionUpdate: "agent_thought_chunk", Content: text(s)})
			}
		}
	case *items.UserMessage:
		if r.replaying && ch.Phase == items.Completed && it.Event.Message != "" {
			r.send(ctx, contentChunk{SessionUpdate: "user_message_chunk", Content: text(it.Event.Message)})
		}
	case *items.Command:
		r.command(ctx, ch, it)
	case *items.Patch:
		r.patch(ctx, ch, it)
	case *items.McpCall:
		r.mcpCall(ctx, ch, it)
	case *items.WebSearch:
		call := toolCall{ToolCallID: ch.ID, Title: "Searching the web", Kind: "fetch"}
		if it.Query != "" {
			call.Title, call.RawInput = "Searching for: "+it.Query, map[string]string{"query": it.Query}
		}
		r.lifecycle(ctx, ch, call, "completed")
	case *items.ImageView:
		if ch.Phase == items.Completed {
			r.send(ctx, toolCall{SessionUpdate: "tool_call", ToolCallID: ch.ID, Title: "View image " + filepath.Base(it.Path), Kind: "read",
				Status: "completed", Locations: []location{{Path: it.Path}}, RawInput: map[string]string{"path": it.Path}})
		}
	case *items.TodoList:
		r.plan(ctx, it)
	case *items.ProposedPlan:
		if ch.Phase == items.Completed && it.Text != "" {
			r.send(ctx, contentChunk{SessionUpdate: "agent_message_chunk", Content: text(it.Text)})
		}
	}
}

func (r *renderer) agentMessage(ctx context.Context, ch items.Change, it *items.AgentMessage) {
	if r.streamed == nil {
		r.streamed = map[string]bool{}
	}
	switch ch.Phase {
	case items.Updated:
		if ch.Delta.Kind == items.DeltaText && ch.Delta.Text != "" {
			r.streamed[ch.ID] = true
			r.send(ctx, contentChunk{SessionUpdate: "agent_message_chunk", Content: text(ch.Delta.Text)})
		}
	case items.Completed:
		if !r.streamed[ch.ID] && it.Text != "" {
			r.send(ctx, contentChunk{SessionUpdate: "agent_message_chunk", Content: text(it.Text)})
		}
		delete(r.streamed, ch.ID)
	}
}

// lifecycle sends a call's start as tool_call, its beginning as in_progress and its end.
func (r *renderer) lifecycle(ctx context.Context, ch items.Change, call toolCall, endStatus string) {
	switch ch.Phase {
	case items.Started:
		call.SessionUpdate = "tool_call"
		if call.Status == "" {
			call.Status = "in_progress"
		}
		r.send(ctx, call)
	case items.Updated:
		if ch.Delta.Kind == items.DeltaBegun {
			r.send(ctx, toolCall{SessionUpdate: "tool_call_update", ToolCallID: ch.ID, Status: "in_progress"})
		}
	case items.Completed:
		if ch.Refused || ch.CutShort {
			endStatus = "failed"
		}
		call.SessionUpdate, call.Status = "tool_call_update", endStatus
		r.send(ctx, call)
	}
}

// commandView is what the title and kind of a command come from.
type commandView struct {
	argv   []string
	cwd    string
	parsed []protocol.ParsedCommand
}

// commandCall is a command's tool call: its kind (read, search or execute) from how the
// engine parsed it, its title, the files it reads and its raw input.
func commandCall(id string, c *commandView) toolCall {
	call := toolCall{ToolCallID: id, Kind: "execute", Title: items.JoinCommand(c.argv),
		RawInput: map[string]any{"command": c.argv, "cwd": c.cwd}}
	if len(c.parsed) > 0 {
		kind := ""
		var titles []string
		for _, p := range c.parsed {
			k := "execute"
			switch p.Type {
			case "read":
				k = "read"
				if p.Path != nil {
					call.Locations = append(call.Locations, location{Path: absIn(c.cwd, *p.Path)})
				}
				titles = append(titles, "Read "+p.Name)
			case "search", "list_files":
				k = "search"
				titles = append(titles, p.Cmd)
			default:
				titles = append(titles, p.Cmd)
			}
			if kind == "" || kind == k {
				kind = k
			} else {
				kind = "execute"
			}
		}
		call.Kind = kind
		if kind != "execute" {
			call.Title = strings.Join(titles, ", ")
		}
	}
	return call
}

func absIn(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

func (r *renderer) command(ctx context.Context, ch items.Change, c *items.Command) {
	call := commandCall(ch.ID, &commandView{argv: c.Argv, cwd: c.Cwd, parsed: c.ParsedCmd})
	switch ch.Phase {
	case items.Started:
		if !c.Begun {
			call.Status = "pending" // waits for the person's approval
		}
	case items.Updated:
		if ch.Delta.Kind != items.DeltaBegun {
			return // output streams to the client with the end (no client terminal here)
		}
	case items.Completed:
		status := "completed"
		if c.Status != items.StatusCompleted {
			status = "failed"
		}
		out := c.AggregatedOutput
		if out == "" {
			out = c.Stdout + c.Stderr
		}
		if out == "" {
			out = c.Output()
		}
		call = toolCall{ToolCallID: ch.ID, Content: []toolCallContent{fenced(out)}}
		exit := 0
		if c.ExitCode != nil {
			exit = *c.ExitCode
		}
		call.RawOutput = map[string]any{"exit_code": exit, "stdout": c.Stdout, "stderr": c.Stderr,
			"aggregated_output": out, "duration_ms": c.Duration.Milliseconds()}
		r.lifecycle(ctx, ch, call, status)
		return
	}
	r.lifecycle(ctx, ch, call, "")
}

// fenced is a command's output as the adapter shows it: a fenced sh block.
func fenced(out string) toolCallContent {
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	t := text("```sh\n" + out + "```")
	return toolCallContent{Type: "content", Content: &t}
}

// patchCall is an edit's tool call: a diff block for each file (absolute paths), the files
// as locations, the changes as raw input.
func patchCall(id string, changes map[string]protocol.FileChange, read func(string) (string, error)) toolCall {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	call := toolCall{ToolCallID: id, Kind: "edit", RawInput: map[string]any{"changes": changes}}
	var names []string
	for _, p := range paths {
		fc := changes[p]
		target := p
		if fc.MovePath != nil {
			target = *fc.MovePath
		}
		names = append(names, filepath.Base(target))
		call.Locations = append(call.Locations, location{Path: target})
		call.Content = append(call.Content, diffOf(p, fc, read))
	}
	call.Title = "Edit " + strings.Join(names, ", ")
	return call
}

// diffOf is one file's diff block: the text before (read now, before the patch applies) and
// after.
func diffOf(path string, fc protocol.FileChange, read func(string) (string, error)) toolCallContent {
	d := toolCallContent{Type: "diff", Path: path}
	switch fc.Kind {
	case protocol.FileAdd:
		d.NewText = &fc.Content
	case protocol.FileDelete:
		old, empty := fc.Content, ""
		d.OldText, d.NewText = &old, &empty
	default:
		if old, err := read(path); err == nil {
			if updated, ok := applyUnifiedDiff(old, fc.UnifiedDiff); ok {
				d.OldText, d.NewText = &old, &updated
				break
			}
		}
		diff := fc.UnifiedDiff // the file is gone or moved already: show the diff itself
		d.NewText = &diff
	}
	if fc.MovePath != nil {
		d.Path = *fc.MovePath
	}
	return d
}

func (r *renderer) patch(ctx context.Context, ch items.Change, p *items.Patch) {
	switch ch.Phase {
	case items.Started:
		call := patchCall(ch.ID, p.Changes, r.reader(ctx))
		if !p.Begun {
			call.Status = "pending"
		}
		r.lifecycle(ctx, ch, call, "")
	case items.Updated:
		r.lifecycle(ctx, ch, toolCall{ToolCallID: ch.ID}, "")
	case items.Completed:
		status := "completed"
		if p.Status != items.StatusCompleted {
			status = "failed"
		}
		call := toolCall{ToolCallID: ch.ID, RawOutput: map[string]any{"success": p.Success, "stdout": p.Stdout, "stderr": p.Stderr}}
		if !r.replaying {
			r.s.handWrites(ctx, p)
		}
		r.lifecycle(ctx, ch, call, status)
	}
}

func (r *renderer) mcpCall(ctx context.Context, ch items.Change, m *items.McpCall) {
	call := toolCall{ToolCallID: ch.ID, Kind: "other", Title: fmt.Sprintf("%s.%s", m.Invocation.Server, m.Invocation.Tool),
		RawInput: m.Invocation.Arguments}
	if ch.Phase == items.Completed {
		status := "completed"
		if m.Status != items.StatusCompleted {
			status = "failed"
		}
		call.RawOutput = m.Result
		r.lifecycle(ctx, ch, call, status)
		return
	}
	r.lifecycle(ctx, ch, call, "")
}

func (r *renderer) plan(ctx context.Context, t *items.TodoList) {
	entries := make([]planEntry, 0, len(t.Steps))
	for _, s := range t.Steps {
		status := string(s.Status)
		switch status {
		case "in_progress", "completed":
		default:
			status = "pending"
		}
		entries = append(entries, planEntry{Content: s.Step, Priority: "medium", Status: status})
	}
	r.send(ctx, planUpdate{SessionUpdate: "plan", Entries: entries})
}
