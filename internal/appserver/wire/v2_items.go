package wire

import (
	"encoding/json"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/internal/lsp/diagreport"
	"github.com/gocodex/gocodex/internal/review/reviewout"
	"github.com/gocodex/gocodex/protocol"
)

// renderItems turns the fold's item changes of one event into v2 notifications, in order.
// quiet is set for the raw reasoning content event: a reasoning item it starts is open but,
// as in Codex 0.169, not announced.
func (p *V2Projector) renderItems(changes []items.Change, quiet bool) []V2Notification {
	var out []V2Notification
	for _, ch := range changes {
		switch ch.Phase {
		case items.Started:
			switch b := ch.Body.(type) {
			case *items.TodoList:
				// The to-do list is the turn's plan in v2: a notification, not an item.
				out = append(out, p.turnPlan(b))
				continue
			case *items.HookRun:
				out = append(out, V2Notification{"hook/started", p.hookNotification(b.TurnID, b.Run)})
				continue
			}
			it := p.v2Item(ch)
			if it == nil {
				continue
			}
			started := p.itemStarted(it)
			if !quiet {
				out = append(out, started...)
			}
		case items.Updated:
			out = append(out, p.itemUpdated(ch)...)
		case items.Completed:
			out = append(out, p.itemEnded(ch)...)
		case items.Dropped:
			// A message or reasoning cut short is not part of the turn: never completed.
			delete(p.open, ch.ID)
		}
	}
	return out
}

// v2Item is the v2 shape of an item that starts (nil for the items v2 reports otherwise).
func (p *V2Projector) v2Item(ch items.Change) V2Item {
	switch b := ch.Body.(type) {
	case *items.AgentMessage:
		return &V2AgentMessage{Type: "agentMessage", ID: ch.ID}
	case *items.Reasoning:
		return &V2Reasoning{Type: "reasoning", ID: ch.ID, Summary: []string{}, Content: []string{}}
	case *items.UserMessage:
		return &V2UserMessage{Type: "userMessage", ID: ch.ID, Content: userMessageContent(b.Event)}
	case *items.Command:
		cmd := items.JoinCommand(b.Argv)
		if !b.Begun {
			// Waiting for approval: Codex names the agent as its source.
			return &V2CommandExecution{Type: "commandExecution", ID: ch.ID, Command: cmd, Cwd: b.Cwd,
				Source: "agent", Status: "inProgress", CommandActions: V2CommandActions(b.ParsedCmd, cmd)}
		}
		it := &V2CommandExecution{Type: "commandExecution", ID: ch.ID, Command: cmd, Cwd: b.Cwd,
			Source: V2Source(b.Source), Status: "inProgress", CommandActions: V2CommandActions(b.ParsedCmd, cmd)}
		if b.ProcessID != "" {
			pid := b.ProcessID
			it.ProcessID = &pid
		}
		return it
	case *items.Patch:
		return &V2FileChange{Type: "fileChange", ID: ch.ID, Changes: V2FileUpdates(b.Changes), Status: "inProgress"}
	case *items.McpCall:
		return &V2McpToolCall{Type: "mcpToolCall", ID: ch.ID, Server: b.Invocation.Server, Tool: b.Invocation.Tool,
			Status: "inProgress", Arguments: nullIfEmpty(b.Invocation.Arguments), Result: json.RawMessage("null")}
	case *items.WebSearch:
		return &V2WebSearch{Type: "webSearch", ID: ch.ID, Action: json.RawMessage(`{"type":"other"}`)}
	case *items.ImageView:
		return &V2ImageView{Type: "imageView", ID: ch.ID, Path: b.Path}
	case *items.ReviewMode:
		if b.Exited {
			text := reviewout.NoOutput
			if b.Output != nil {
				text = reviewout.Render(*b.Output)
			}
			return &V2ReviewMode{Type: "exitedReviewMode", ID: ch.ID, Review: text}
		}
		return &V2ReviewMode{Type: "enteredReviewMode", ID: ch.ID, Review: b.Hint}
	case *items.Compaction:
		return &V2ContextCompaction{Type: "contextCompaction", ID: ch.ID}
	case *items.ProposedPlan:
		return &V2Plan{Type: "plan", ID: ch.ID, Text: b.Text}
	case *items.CollabCall:
		return v2CollabCall(ch.ID, b)
	case *items.SubAgentActivity:
		return v2SubAgentActivity(ch.ID, b)
	}
	return nil
}

// itemUpdated is the notification of a streamed delta (or of a new plan).
func (p *V2Projector) itemUpdated(ch items.Change) []V2Notification {
	d := ch.Delta
	switch ch.Body.(type) {
	case *items.AgentMessage:
		return []V2Notification{{"item/agentMessage/delta", V2Delta{p.threadID, p.turnID(), ch.ID, d.Text}}}
	case *items.ProposedPlan:
		return []V2Notification{{"item/plan/delta", V2Delta{p.threadID, p.turnID(), ch.ID, d.Text}}}
	case *items.Command:
		if d.Kind != items.DeltaOutput {
			// A command that waited for approval began: its item learns its process and source.
			if prev, ok := p.open[ch.ID].(*V2CommandExecution); ok && d.Kind == items.DeltaBegun {
				if started, ok := p.v2Item(ch).(*V2CommandExecution); ok {
					prev.ProcessID, prev.Source = started.ProcessID, started.Source
				}
			}
			return nil
		}
		return []V2Notification{{"item/commandExecution/outputDelta", V2Delta{p.threadID, p.turnID(), ch.ID, string(d.Chunk)}}}
	case *items.TodoList:
		return []V2Notification{p.turnPlan(ch.Body.(*items.TodoList))}
	case *items.Reasoning:
		switch d.Kind {
		case items.DeltaSummary:
			return []V2Notification{{"item/reasoning/summaryTextDelta", V2SummaryDelta{p.threadID, p.turnID(), ch.ID, d.Text, d.Index}}}
		case items.DeltaSummaryPart:
			return []V2Notification{{"item/reasoning/summaryPartAdded", V2SummaryPartAdded{p.threadID, p.turnID(), ch.ID, d.Index}}}
		case items.DeltaContent:
			return []V2Notification{{"item/reasoning/textDelta", V2ReasoningTextDelta{p.threadID, p.turnID(), ch.ID, d.Text, d.Index}}}
		}
	}
	return nil
}

func (p *V2Projector) turnPlan(t *items.TodoList) V2Notification {
	plan := make([]V2PlanStep, 0, len(t.Steps))
	for _, s := range t.Steps {
		plan = append(plan, V2PlanStep{Step: s.Step, Status: Camel(string(s.Status))})
	}
	return V2Notification{"turn/plan/updated", V2TurnPlanUpdated{p.threadID, p.turnID(), t.Explanation, plan}}
}

// itemEnded completes an item: a call cut short by its turn's end fails as it stood; the
// others take their final shape from the fold.
func (p *V2Projector) itemEnded(ch items.Change) []V2Notification {
	open := p.open[ch.ID]
	if ch.CutShort || ch.Refused {
		if open == nil {
			return nil
		}
		status := "failed"
		if !ch.CutShort {
			status = "declined"
		}
		switch x := open.(type) {
		case *V2CommandExecution:
			x.Status = status
		case *V2FileChange:
			x.Status = status
		case *V2McpToolCall:
			x.Status = status
		}
		return p.itemCompleted(open)
	}
	switch b := ch.Body.(type) {
	case *items.AgentMessage:
		a := &V2AgentMessage{Type: "agentMessage", ID: ch.ID, Text: b.Text}
		if b.Phase != "" {
			ph := b.Phase
			a.Phase = &ph
		}
		return p.itemCompleted(a)
	case *items.Reasoning:
		r, ok := open.(*V2Reasoning)
		if !ok {
			r = &V2Reasoning{Type: "reasoning", ID: ch.ID}
		}
		r.Summary, r.Content = b.Summary(), b.Content()
		return p.itemCompleted(r)
	case *items.Command:
		return p.commandEnded(ch.ID, b)
	case *items.Patch:
		return p.patchEnded(ch.ID, b)
	case *items.McpCall:
		return p.itemCompleted(mcpEnded(ch.ID, b))
	case *items.WebSearch:
		action := json.RawMessage(`{"type":"other"}`)
		if len(b.Action) > 0 {
			action = V2ErrorInfo(b.Action) // the same snake→camel key conversion
		}
		return p.itemCompleted(&V2WebSearch{Type: "webSearch", ID: ch.ID, Query: b.Query, Action: action})
	case *items.Compaction:
		return p.itemCompleted(&V2ContextCompaction{Type: "contextCompaction", ID: ch.ID})
	case *items.ProposedPlan:
		return p.itemCompleted(&V2Plan{Type: "plan", ID: ch.ID, Text: b.Text})
	case *items.CollabCall:
		return p.itemCompleted(v2CollabCall(ch.ID, b))
	case *items.SubAgentActivity:
		return p.itemCompleted(v2SubAgentActivity(ch.ID, b))
	case *items.HookRun:
		return []V2Notification{{"hook/completed", p.hookNotification(b.TurnID, b.Run)}}
	case *items.Notice:
		id := p.threadID
		return []V2Notification{{"warning", V2Warning{ThreadID: &id, Message: b.Message}}}
	case *items.UserMessage, *items.ImageView, *items.ReviewMode:
		if open != nil {
			return p.itemCompleted(open)
		}
	}
	return nil
}

func (p *V2Projector) commandEnded(id string, m *items.Command) []V2Notification {
	it, ok := p.open[id].(*V2CommandExecution)
	if !ok {
		cmd := items.JoinCommand(m.Argv)
		it = &V2CommandExecution{Type: "commandExecution", ID: id, Command: cmd, Cwd: m.Cwd,
			Source: V2Source(m.Source), CommandActions: V2CommandActions(m.ParsedCmd, cmd)}
	}
	if m.ProcessID != "" {
		pid := m.ProcessID
		it.ProcessID = &pid
	}
	if m.Source != "" {
		it.Source = V2Source(m.Source)
	}
	code := *m.ExitCode
	dur := m.Duration.Milliseconds()
	it.ExitCode, it.DurationMs = &code, &dur
	out := m.AggregatedOutput
	if out == "" {
		out = m.Stdout + m.Stderr
	}
	if out != "" {
		it.AggregatedOutput = &out
	}
	switch {
	case m.RawStatus == protocol.ExecDeclined:
		it.Status = "declined"
	case m.RawStatus == protocol.ExecFailed || (m.RawStatus == "" && code != 0):
		it.Status = "failed"
	default:
		it.Status = "completed"
	}
	return p.itemCompleted(it)
}

func (p *V2Projector) patchEnded(id string, m *items.Patch) []V2Notification {
	it, ok := p.open[id].(*V2FileChange)
	if !ok {
		it = &V2FileChange{Type: "fileChange", ID: id, Changes: V2FileUpdates(m.Reported)}
	}
	if len(m.Reported) > 0 {
		it.Changes = V2FileUpdates(m.Reported)
	}
	it.Status = "failed"
	switch {
	case m.RawStatus == protocol.PatchDeclined:
		it.Status = "declined"
	case m.RawStatus == protocol.PatchCompleted || (m.RawStatus == "" && m.Success):
		it.Status = "completed"
	}
	var out []V2Notification
	// Codex reports a patch's output only when it failed.
	if it.Status == "failed" && (m.Stdout != "" || m.Stderr != "") {
		out = append(out, V2Notification{"item/fileChange/outputDelta", V2Delta{p.threadID, p.turnID(), id, m.Stdout + m.Stderr}})
	}
	// gocodex's own: the language servers' diagnostics for the patched files (internal/lsp).
	if block, ok := diagreport.Block(m.Stdout); it.Status == "completed" && ok {
		out = append(out, V2Notification{"item/fileChange/outputDelta", V2Delta{p.threadID, p.turnID(), id, block}})
	}
	return append(out, p.itemCompleted(it)...)
}

func mcpEnded(id string, m *items.McpCall) *V2McpToolCall {
	it := &V2McpToolCall{Type: "mcpToolCall", ID: id, Server: m.Invocation.Server, Tool: m.Invocation.Tool,
		Status: "completed", Arguments: nullIfEmpty(m.Invocation.Arguments), Result: json.RawMessage("null")}
	dur := m.Duration.Milliseconds()
	it.DurationMs = &dur
	if m.Result.Err != nil {
		it.Status, it.Error = "failed", &V2McpError{Message: *m.Result.Err}
	} else {
		it.Result = nullIfEmpty(m.Result.Ok)
		if !m.Result.IsSuccess() {
			it.Status = "failed"
		}
	}
	return it
}
