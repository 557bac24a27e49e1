package wire

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/internal/lsp"
	"github.com/gocodex/gocodex/internal/review"
	"github.com/gocodex/gocodex/protocol"
)

// V2Projector folds one thread's events into v2 notifications and keeps the thread's
// turns (for thread/read and turn/completed). Not safe for concurrent use: its owner feeds
// it events in order. Replaying a rollout's persisted events through a fresh projector
// rebuilds the turns of a thread that is not loaded.
type V2Projector struct {
	threadID string
	now      func() time.Time
	newID    func() string
	// lastUsage is the latest thread/tokenUsage/updated (a resumed thread's is said again).
	lastUsage *V2TokenUsageUpdated

	status V2ThreadStatus
	turns  []*V2Turn
	turn   *V2Turn
	open   map[string]V2Item // started, not completed, by item id
	// background are the commands a completed turn left running (exec_command sessions), by
	// item id, with their turn's id: they complete when their process ends or is cleaned.
	background map[string]string
	agent      *V2AgentMessage
	reason     *V2Reasoning
	started    time.Time
	summary    int
	// text collects the streamed text of the open agent message and reasoning: appending
	// deltas to a string would copy it whole on each one (quadratic for a long answer).
	text streamText
	// diff is the running turn's last unified diff ("" before a patch): Codex 0.169 sends
	// it again after each usage report of the turn.
	diff string
}

// NewV2Projector returns the projector of thread threadID; now is the clock (nil means
// time.Now).
func NewV2Projector(threadID string, now func() time.Time) *V2Projector {
	if now == nil {
		now = time.Now
	}
	return &V2Projector{
		threadID: threadID, now: now,
		newID: func() string {
			id, err := uuid.NewV7()
			if err != nil {
				return uuid.NewString()
			}
			return id.String()
		},
		status:     V2ThreadStatus{Type: "idle"},
		open:       map[string]V2Item{},
		background: map[string]string{},
	}
}

// Status is the thread's current status.
func (p *V2Projector) Status() V2ThreadStatus { return p.status }

// Turns copies the thread's turns with their full items (the running one last, with the
// items completed so far).
func (p *V2Projector) Turns() []V2Turn {
	out := make([]V2Turn, 0, len(p.turns)+1)
	all := p.turns
	if p.turn != nil {
		all = append(all[:len(all):len(all)], p.turn)
	}
	for _, t := range all {
		c := *t
		c.Items = append([]V2Item{}, t.Items...)
		out = append(out, c)
	}
	return out
}

// TurnRunning reports whether a turn is in progress, and its id.
func (p *V2Projector) TurnRunning() (string, bool) {
	if p.turn == nil {
		return "", false
	}
	return p.turn.ID, true
}

func (p *V2Projector) ms() int64 { return p.now().UnixMilli() }

func (p *V2Projector) turnID() string {
	if p.turn == nil {
		return ""
	}
	return p.turn.ID
}

func (p *V2Projector) setStatus(s V2ThreadStatus) []V2Notification {
	p.status = s
	return []V2Notification{{"thread/status/changed", V2ThreadStatusChanged{ThreadID: p.threadID, Status: s}}}
}

func active(flags ...string) V2ThreadStatus {
	if flags == nil {
		flags = []string{}
	}
	return V2ThreadStatus{Type: "active", ActiveFlags: &flags}
}

func (p *V2Projector) itemStarted(it V2Item) []V2Notification {
	now := p.ms()
	it.setTimes(&now, nil)
	p.open[it.ItemID()] = it
	return []V2Notification{{"item/started", V2ItemStarted{Item: it.clone(), ThreadID: p.threadID, TurnID: p.turnID(), StartedAtMs: now}}}
}

func (p *V2Projector) itemCompleted(it V2Item) []V2Notification {
	now := p.ms()
	if started, _ := it.Times(); started == nil {
		// A fresh copy of an item that was started keeps its start time.
		if open, ok := p.open[it.ItemID()]; ok {
			started, _ = open.Times()
			it.setTimes(started, nil)
		}
	}
	it.setTimes(nil, &now)
	delete(p.open, it.ItemID())
	turnID := p.turnID()
	if bg, ok := p.background[it.ItemID()]; ok {
		turnID = bg // a command its turn left running ends: it belongs to that turn
		delete(p.background, it.ItemID())
	}
	it = it.clone()
	if p.turn != nil {
		p.turn.Items = append(p.turn.Items, it)
	}
	return []V2Notification{{"item/completed", V2ItemCompleted{Item: it, ThreadID: p.threadID, TurnID: turnID, CompletedAtMs: now}}}
}

// closeReasoning completes the reasoning still being streamed. (An agent message is
// completed only by the engine's agent_message, with its whole text, as Codex 0.169 does:
// one the model never finished is left open when the turn ends.)
func (p *V2Projector) closeReasoning() []V2Notification {
	if p.reason == nil {
		return nil
	}
	p.text.flushReasoning(p.reason)
	out := p.itemCompleted(p.reason)
	p.reason = nil
	return out
}

func (p *V2Projector) reasoning() ([]V2Notification, *V2Reasoning) {
	if p.reason != nil {
		return nil, p.reason
	}
	r := &V2Reasoning{Type: "reasoning", ID: p.newID(), Summary: []string{}, Content: []string{}}
	p.reason, p.summary = r, 0
	p.text.resetReasoning()
	return p.itemStarted(r), r
}

// Apply folds one event in and returns the notifications it causes, in order.
func (p *V2Projector) Apply(ev protocol.Event) []V2Notification {
	// Each event is of one group; the others answer nil.
	out := p.applyTurn(ev.Msg)
	out = append(out, p.applyMessage(ev.Msg)...)
	out = append(out, p.applyTool(ev.Msg)...)
	out = append(out, p.applyPatchAndOthers(ev.Msg)...)
	out = append(out, p.applyMcp(ev.Msg)...)
	out = append(out, p.applyQuestion(ev.Msg)...)
	out = append(out, p.applyHook(ev.Msg)...)
	return append(out, p.applyThread(ev.Msg)...)
}

// applyTurn handles the events that open and close turns.
func (p *V2Projector) applyTurn(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.TurnStartedEvent:
		return p.turnStarted(m)
	case protocol.TurnCompleteEvent:
		var terr *V2TurnError
		if m.Error != nil {
			terr = &V2TurnError{Message: m.Error.Message, CodexErrorInfo: V2ErrorInfo(m.Error.CodexErrorInfo)}
		}
		return p.turnEnded("completed", terr)
	case protocol.TurnAbortedEvent:
		return p.turnEnded("interrupted", nil)

	}
	return nil
}

// applyMessage handles the user's and the agent's messages and reasoning.
func (p *V2Projector) applyMessage(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.UserMessageEvent:
		it := &V2UserMessage{Type: "userMessage", ID: p.newID(), Content: userMessageContent(m)}
		return append(p.itemStarted(it), p.itemCompleted(it)...)

	case protocol.AgentMessageDeltaEvent:
		out := p.closeReasoning()
		if p.agent == nil {
			p.agent = &V2AgentMessage{Type: "agentMessage", ID: p.newID()}
			out = append(out, p.itemStarted(&V2AgentMessage{Type: "agentMessage", ID: p.agent.ID})...)
		}
		return append(out, V2Notification{"item/agentMessage/delta", V2Delta{p.threadID, p.turnID(), p.agent.ID, m.Delta}})
	case protocol.AgentMessageEvent:
		out := p.closeReasoning()
		if p.agent == nil {
			p.agent = &V2AgentMessage{Type: "agentMessage", ID: p.newID()}
			out = append(out, p.itemStarted(&V2AgentMessage{Type: "agentMessage", ID: p.agent.ID})...)
		}
		a := p.agent
		a.Text = m.Message
		if m.Phase != "" {
			ph := m.Phase
			a.Phase = &ph
		}
		if it, ok := p.open[a.ID].(*V2AgentMessage); ok {
			a.StartedAtMs = it.StartedAtMs
		}
		p.agent = nil
		return append(out, p.itemCompleted(a)...)

	case protocol.AgentReasoningDeltaEvent:
		out, r := p.reasoning()
		for len(r.Summary) <= p.summary {
			r.Summary = append(r.Summary, "")
		}
		p.text.appendSummary(r, p.summary, m.Delta)
		return append(out, V2Notification{"item/reasoning/summaryTextDelta", V2SummaryDelta{p.threadID, p.turnID(), r.ID, m.Delta, p.summary}})
	case protocol.AgentReasoningSectionBreakEvent:
		out, r := p.reasoning()
		p.text.flushReasoning(r)
		p.summary++
		return append(out, V2Notification{"item/reasoning/summaryPartAdded", V2SummaryPartAdded{p.threadID, p.turnID(), r.ID, p.summary}})
	case protocol.AgentReasoningEvent:
		out, r := p.reasoning()
		p.text.flushReasoning(r)
		for len(r.Summary) <= p.summary {
			r.Summary = append(r.Summary, "")
		}
		r.Summary[p.summary] = m.Text
		p.summary++
		return out
	case protocol.AgentReasoningRawContentDeltaEvent:
		out, r := p.reasoning()
		if len(r.Content) == 0 {
			r.Content = append(r.Content, "")
		}
		p.text.appendContent(r, m.Delta)
		return append(out, V2Notification{"item/reasoning/textDelta", V2ReasoningTextDelta{p.threadID, p.turnID(), r.ID, m.Delta, len(r.Content) - 1}})
	case protocol.AgentReasoningRawContentEvent:
		_, r := p.reasoning()
		p.text.flushReasoning(r)
		if len(r.Content) == 0 {
			r.Content = append(r.Content, m.Text)
		} else {
			r.Content[len(r.Content)-1] = m.Text
		}
		return nil

	}
	return nil
}

// applyTool handles approvals and commands.
func (p *V2Projector) applyTool(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.ExecApprovalRequestEvent:
		out := p.closeReasoning()
		out = append(out, p.setStatus(active("waitingOnApproval"))...)
		if _, ok := p.open[m.CallID]; !ok {
			cmd := items.JoinCommand(m.Command)
			out = append(out, p.itemStarted(&V2CommandExecution{Type: "commandExecution", ID: m.CallID, Command: cmd, Cwd: m.Cwd,
				Source: "agent", Status: "inProgress", CommandActions: V2CommandActions(m.ParsedCmd, cmd)})...)
		}
		return out
	case protocol.ApplyPatchApprovalRequestEvent:
		out := p.closeReasoning()
		if _, ok := p.open[m.CallID]; !ok {
			out = append(out, p.itemStarted(&V2FileChange{Type: "fileChange", ID: m.CallID, Changes: V2FileUpdates(m.Changes), Status: "inProgress"})...)
		}
		return append(out, p.setStatus(active("waitingOnApproval"))...)

	case protocol.ExecCommandBeginEvent:
		out := p.closeReasoning()
		cmd := items.JoinCommand(m.Command)
		it := &V2CommandExecution{Type: "commandExecution", ID: m.CallID, Command: cmd, Cwd: m.Cwd,
			Source: V2Source(m.Source), Status: "inProgress", CommandActions: V2CommandActions(m.ParsedCmd, cmd)}
		if m.ProcessID != "" {
			pid := m.ProcessID
			it.ProcessID = &pid
		}
		if prev, ok := p.open[m.CallID].(*V2CommandExecution); ok {
			prev.ProcessID, prev.Source = it.ProcessID, it.Source
			return out
		}
		return append(out, p.itemStarted(it)...)
	case protocol.ExecCommandOutputDeltaEvent:
		if _, ok := p.open[m.CallID]; !ok {
			return nil
		}
		return []V2Notification{{"item/commandExecution/outputDelta", V2Delta{p.threadID, p.turnID(), m.CallID, string(m.Chunk)}}}
	case protocol.ExecCommandEndEvent:
		return p.execEnded(m)

	}
	return nil
}

// applyPatchAndOthers handles patches, image views, web searches, MCP calls and
// compactions.
func (p *V2Projector) applyPatchAndOthers(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.PatchApplyBeginEvent:
		out := p.closeReasoning()
		if _, ok := p.open[m.CallID]; ok {
			return out
		}
		return append(out, p.itemStarted(&V2FileChange{Type: "fileChange", ID: m.CallID, Changes: V2FileUpdates(m.Changes), Status: "inProgress"})...)
	case protocol.PatchApplyEndEvent:
		it, ok := p.open[m.CallID].(*V2FileChange)
		if !ok {
			it = &V2FileChange{Type: "fileChange", ID: m.CallID, Changes: V2FileUpdates(m.Changes)}
		}
		if len(m.Changes) > 0 {
			it.Changes = V2FileUpdates(m.Changes)
		}
		it.Status = "failed"
		switch {
		case m.Status == protocol.PatchDeclined:
			it.Status = "declined"
		case m.Status == protocol.PatchCompleted || (m.Status == "" && m.Success):
			it.Status = "completed"
		}
		var out []V2Notification
		// Codex reports a patch's output only when it failed.
		if it.Status == "failed" && (m.Stdout != "" || m.Stderr != "") {
			out = append(out, V2Notification{"item/fileChange/outputDelta", V2Delta{p.threadID, p.turnID(), m.CallID, m.Stdout + m.Stderr}})
		}
		// gocodex's own: the language servers' diagnostics for the patched files (internal/lsp).
		if _, diagnostics, ok := strings.Cut(m.Stdout, lsp.Header); it.Status == "completed" && ok {
			out = append(out, V2Notification{"item/fileChange/outputDelta", V2Delta{p.threadID, p.turnID(), m.CallID, lsp.Header + diagnostics}})
		}
		return append(out, p.itemCompleted(it)...)

	case protocol.ViewImageToolCallEvent:
		it := &V2ImageView{Type: "imageView", ID: m.CallID, Path: m.Path}
		return append(p.itemStarted(it), p.itemCompleted(it)...)
	case protocol.WebSearchBeginEvent:
		return append(p.closeReasoning(), p.itemStarted(&V2WebSearch{Type: "webSearch", ID: m.CallID, Action: json.RawMessage(`{"type":"other"}`)})...)
	case protocol.WebSearchEndEvent:
		action := json.RawMessage(`{"type":"other"}`)
		if len(m.Action) > 0 {
			action = V2ErrorInfo(m.Action) // the same snake→camel key conversion
		}
		return p.itemCompleted(&V2WebSearch{Type: "webSearch", ID: m.CallID, Query: m.Query, Action: action})
	case protocol.McpToolCallBeginEvent:
		return append(p.closeReasoning(), p.itemStarted(&V2McpToolCall{Type: "mcpToolCall", ID: m.CallID, Server: m.Invocation.Server,
			Tool: m.Invocation.Tool, Status: "inProgress", Arguments: nullIfEmpty(m.Invocation.Arguments), Result: json.RawMessage("null")})...)
	case protocol.McpToolCallEndEvent:
		it := &V2McpToolCall{Type: "mcpToolCall", ID: m.CallID, Server: m.Invocation.Server, Tool: m.Invocation.Tool,
			Status: "completed", Arguments: nullIfEmpty(m.Invocation.Arguments), Result: json.RawMessage("null")}
		dur := time.Duration(m.Duration).Milliseconds()
		it.DurationMs = &dur
		if m.Result.Err != nil {
			it.Status, it.Error = "failed", &V2McpError{Message: *m.Result.Err}
		} else {
			it.Result = nullIfEmpty(m.Result.Ok)
			if !m.Result.IsSuccess() {
				it.Status = "failed"
			}
		}
		return p.itemCompleted(it)

	case protocol.EnteredReviewModeEvent:
		it := &V2ReviewMode{Type: "enteredReviewMode", ID: p.newID(), Review: m.UserFacingHint}
		return append(append(p.closeReasoning(), p.itemStarted(it)...), p.itemCompleted(it)...)
	case protocol.ExitedReviewModeEvent:
		text := review.NoOutput
		if m.ReviewOutput != nil {
			text = review.Render(*m.ReviewOutput)
		}
		it := &V2ReviewMode{Type: "exitedReviewMode", ID: p.newID(), Review: text}
		return append(append(p.closeReasoning(), p.itemStarted(it)...), p.itemCompleted(it)...)

	case protocol.ItemStartedEvent:
		if id, ok := compactionID(m.Item); ok {
			return append(p.closeReasoning(), p.itemStarted(&V2ContextCompaction{Type: "contextCompaction", ID: id})...)
		}
		if plan, ok := planItem(m.Item); ok {
			// The plan interrupts the message streaming around it, which goes on after.
			return p.itemStarted(plan)
		}
		if id, ok := agentMessageStart(m.Item); ok && (p.agent == nil || (id != "" && id != p.agent.ID)) {
			if id == "" {
				id = p.newID()
			}
			// A message the model began and never finished stays open, as in Codex 0.169.
			p.abandonAgent()
			out := p.closeReasoning()
			p.agent = &V2AgentMessage{Type: "agentMessage", ID: id}
			return append(out, p.itemStarted(&V2AgentMessage{Type: "agentMessage", ID: id})...)
		}
	case protocol.ItemCompletedEvent:
		if id, ok := compactionID(m.Item); ok {
			return p.itemCompleted(&V2ContextCompaction{Type: "contextCompaction", ID: id})
		}
		if plan, ok := planItem(m.Item); ok {
			return p.itemCompleted(plan)
		}
	case protocol.PlanDeltaEvent:
		return []V2Notification{{"item/plan/delta", V2Delta{p.threadID, p.turnID(), m.ItemID, m.Delta}}}

	}
	return nil
}

// applyThread handles thread-level reports: diffs, plans, usage, errors, warnings.
func (p *V2Projector) applyThread(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.TurnDiffEvent:
		p.diff = m.UnifiedDiff
		return []V2Notification{{"turn/diff/updated", V2TurnDiffUpdated{p.threadID, p.turnID(), m.UnifiedDiff}}}
	case protocol.PlanUpdateEvent:
		plan := make([]V2PlanStep, 0, len(m.Plan))
		for _, s := range m.Plan {
			plan = append(plan, V2PlanStep{Step: s.Step, Status: Camel(string(s.Status))})
		}
		return []V2Notification{{"turn/plan/updated", V2TurnPlanUpdated{p.threadID, p.turnID(), m.Explanation, plan}}}
	case protocol.TokenCountEvent:
		var out []V2Notification
		if m.Info != nil {
			u := V2TokenUsageUpdated{p.threadID, p.turnID(), V2TokenUsage{
				Total: breakdown(m.Info.TotalTokenUsage), Last: breakdown(m.Info.LastTokenUsage), ModelContextWindow: m.Info.ModelContextWindow}}
			p.lastUsage = &u
			out = append(out, V2Notification{"thread/tokenUsage/updated", u})
		}
		// Codex 0.169 follows every usage report with the account's rate limits (all null
		// when the server sent none), and reports them alone for a response that ended
		// before it reported usage (cut short or interrupted).
		if m.Info != nil || m.RateLimits != nil {
			out = append(out, V2Notification{"account/rateLimits/updated", V2RateLimitsUpdated{RateLimits: rateLimits(m.RateLimits)}})
		}
		if m.Info != nil && p.diff != "" && p.turn != nil {
			out = append(out, V2Notification{"turn/diff/updated", V2TurnDiffUpdated{p.threadID, p.turnID(), p.diff}})
		}
		return out
	case protocol.ErrorEvent:
		e := V2TurnError{Message: m.Message, CodexErrorInfo: V2ErrorInfo(m.CodexErrorInfo)}
		var out []V2Notification
		if p.turn != nil {
			p.turn.Error = &e
			// As Codex: the thread is in error until its next turn starts.
			out = p.setStatus(V2ThreadStatus{Type: "systemError"})
		}
		return append(out, V2Notification{"error", V2Error{Error: e, ThreadID: p.threadID, TurnID: p.turnID()}})
	case protocol.StreamErrorEvent:
		// The response is retried from the start: as Codex 0.169, what it was streaming stays
		// open, never completed, and the retried response's message and reasoning are new
		// items (item/started again).
		p.abandonStreams()
		e := V2TurnError{Message: m.Message, CodexErrorInfo: V2ErrorInfo(m.CodexErrorInfo), AdditionalDetails: m.AdditionalDetails}
		return []V2Notification{{"error", V2Error{Error: e, WillRetry: true, ThreadID: p.threadID, TurnID: p.turnID()}}}
	case protocol.WarningEvent:
		id := p.threadID
		return []V2Notification{{"warning", V2Warning{ThreadID: &id, Message: m.Message}}}
	case protocol.TerminalInteractionEvent:
		return []V2Notification{{"item/commandExecution/terminalInteraction", V2TerminalInteraction{ThreadID: p.threadID, TurnID: p.turnID(),
			ItemID: m.CallID, ProcessID: m.ProcessID, Stdin: m.Stdin}}}
	case protocol.ModelRerouteEvent:
		return []V2Notification{{"model/rerouted", V2ModelRerouted{ThreadID: p.threadID, TurnID: p.turnID(),
			FromModel: m.FromModel, ToModel: m.ToModel, Reason: v2RerouteReason(m.Reason)}}}
	}
	return nil
}

// ApprovalResolved is what follows the person's answer to an approval request: the
// thread is no longer waiting and, when the answer refused the call, its item is completed
// as declined (the engine reports no end for a refused command). Codex 0.169 sends these two
// from different tasks, in either order; the item comes first here.
func (p *V2Projector) ApprovalResolved(itemID string, declined bool) []V2Notification {
	var out []V2Notification
	if declined {
		switch it := p.open[itemID].(type) {
		case *V2CommandExecution:
			it.Status = "declined"
			out = append(out, p.itemCompleted(it)...)
		case *V2FileChange:
			it.Status = "declined"
			out = append(out, p.itemCompleted(it)...)
		}
	}
	if p.turn != nil {
		out = append(out, p.setStatus(active())...)
	}
	return out
}

func (p *V2Projector) execEnded(m protocol.ExecCommandEndEvent) []V2Notification {
	it, ok := p.open[m.CallID].(*V2CommandExecution)
	if !ok {
		cmd := items.JoinCommand(m.Command)
		it = &V2CommandExecution{Type: "commandExecution", ID: m.CallID, Command: cmd, Cwd: m.Cwd,
			Source: V2Source(m.Source), CommandActions: V2CommandActions(m.ParsedCmd, cmd)}
	}
	if m.ProcessID != "" {
		pid := m.ProcessID
		it.ProcessID = &pid
	}
	if m.Source != "" {
		it.Source = V2Source(m.Source)
	}
	code := m.ExitCode
	dur := time.Duration(m.Duration).Milliseconds()
	it.ExitCode, it.DurationMs = &code, &dur
	out := m.AggregatedOutput
	if out == "" {
		out = m.Stdout + m.Stderr
	}
	if out != "" {
		it.AggregatedOutput = &out
	}
	switch {
	case m.Status == protocol.ExecDeclined:
		it.Status = "declined"
	case m.Status == protocol.ExecFailed || (m.Status == "" && m.ExitCode != 0):
		it.Status = "failed"
	default:
		it.Status = "completed"
	}
	return p.itemCompleted(it)
}

func (p *V2Projector) turnStarted(m protocol.TurnStartedEvent) []V2Notification {
	p.abandonAgent()
	out := p.closeReasoning()
	now := p.now()
	p.started = now
	startedAt := now.Unix()
	if m.StartedAt != nil {
		startedAt = *m.StartedAt
	}
	p.turn = &V2Turn{ID: m.TurnID, RootTurnID: &m.TurnID, Items: []V2Item{}, ItemsView: "full", Status: "inProgress", StartedAt: &startedAt}
	p.diff = ""
	out = append(out, p.setStatus(active())...)
	snap := *p.turn
	snap.Items, snap.ItemsView = []V2Item{}, "notLoaded"
	return append(out, V2Notification{"turn/started", V2TurnNotification{ThreadID: p.threadID, Turn: snap}})
}

func (p *V2Projector) turnEnded(status string, terr *V2TurnError) []V2Notification {
	var out []V2Notification
	if status == "interrupted" || terr != nil {
		// Codex 0.169 leaves a message cut short by an interrupt or a failure open: it is not
		// part of the turn.
		p.abandonStreams()
	} else {
		// As Codex 0.169, a message the model never finished is left open: not part of the
		// turn (item/completed comes only with a whole answer).
		p.abandonAgent()
		out = p.closeReasoning()
	}
	if p.turn == nil {
		return out
	}
	// Items still open (a command cut short) end with the turn, except, as in Codex 0.169,
	// the exec_command sessions a completed turn leaves running in the background.
	for id, it := range p.open {
		if x, ok := it.(*V2CommandExecution); ok && x.ProcessID != nil && status == "completed" && terr == nil && p.turn.Error == nil {
			p.background[id] = p.turn.ID
			continue
		}
		switch x := it.(type) {
		case *V2CommandExecution:
			x.Status = "failed"
		case *V2FileChange:
			x.Status = "failed"
		case *V2McpToolCall:
			x.Status = "failed"
		}
		out = append(out, p.itemCompleted(it)...)
	}
	t := p.turn
	if terr == nil {
		terr = t.Error
	}
	if terr != nil && status == "completed" {
		status = "failed"
	}
	t.Status, t.Error = status, terr
	now := p.now()
	done := now.Unix()
	dur := now.Sub(p.started).Milliseconds()
	t.CompletedAt, t.DurationMs = &done, &dur
	p.turns = append(p.turns, t)
	p.turn = nil
	if p.status.Type != "systemError" {
		out = append(out, p.setStatus(V2ThreadStatus{Type: "idle"})...)
	}
	// turn/completed carries a summary: the agent's messages; a failed turn carries none
	// ("notLoaded"), as in Codex 0.169.
	snap := *t
	snap.ItemsView = "summary"
	snap.Items = []V2Item{}
	if status == "failed" {
		snap.ItemsView = "notLoaded"
	}
	for _, it := range t.Items {
		if _, ok := it.(*V2AgentMessage); ok && status != "failed" {
			snap.Items = append(snap.Items, it)
		}
	}
	return append(out, V2Notification{"turn/completed", V2TurnNotification{ThreadID: p.threadID, Turn: snap}})
}

func compactionID(raw json.RawMessage) (string, bool) {
	var it struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(raw, &it) != nil || !strings.EqualFold(it.Type, "contextCompaction") {
		return "", false
	}
	return it.ID, true
}

// agentMessageStart reads the AgentMessage item the engine starts when the model opens its
// answer.
func agentMessageStart(raw json.RawMessage) (string, bool) {
	var it struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Type != "AgentMessage" {
		return "", false
	}
	return it.ID, true
}

// planItem reads the engine's Plan item (plan mode's proposed plan).
func planItem(raw json.RawMessage) (*V2Plan, bool) {
	var it struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Type != "Plan" {
		return nil, false
	}
	return &V2Plan{Type: "plan", ID: it.ID, Text: it.Text}, true
}

// abandonStreams forgets the agent message and reasoning being streamed without completing
// them: they are not part of the turn (the response they came from was cut short).
func (p *V2Projector) abandonStreams() {
	p.abandonAgent()
	if p.reason != nil {
		delete(p.open, p.reason.ID)
	}
	p.reason = nil
	p.text.resetReasoning()
}

// abandonAgent forgets the agent message being streamed without completing it.
func (p *V2Projector) abandonAgent() {
	if p.agent != nil {
		delete(p.open, p.agent.ID)
	}
	p.agent = nil
}

// Seed sets the turns a resumed thread had before it was loaded, so thread/read shows them.
func (p *V2Projector) Seed(turns []V2Turn) {
	seeded := make([]*V2Turn, 0, len(turns)+len(p.turns))
	for i := range turns {
		t := turns[i]
		seeded = append(seeded, &t)
	}
	p.turns = append(seeded, p.turns...)
}

// nullIfEmpty writes an absent raw value as null, as Codex's app-server does.
func nullIfEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// LastUsage is the thread's latest token usage notification, if any (said again to a client
// that resumes the thread, as Codex 0.169 does).
func (p *V2Projector) LastUsage() (V2TokenUsageUpdated, bool) {
	if p.lastUsage == nil {
		return V2TokenUsageUpdated{}, false
	}
	return *p.lastUsage, true
}

// SetLastUsage carries a stored thread's latest usage into a fresh projection.
func (p *V2Projector) SetLastUsage(u V2TokenUsageUpdated) {
	u.ThreadID = p.threadID
	p.lastUsage = &u
}
