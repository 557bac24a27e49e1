package wire

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/items"
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
	started    time.Time
	// fold pairs the engine's events into items (internal/items); the projector draws its
	// changes as v2 items and notifications.
	fold *items.Fold
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
	p := &V2Projector{
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
	// The deltas go out as they come and items are read whole: the fold need not copy them.
	p.fold = items.NewFold(items.FoldOptions{NewID: func() string { return p.newID() }, NoStreamCopies: true})
	return p
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

// Apply folds one event in and returns the notifications it causes, in order: first those
// of the items it changes (through the fold), then the turn-level ones.
func (p *V2Projector) Apply(ev protocol.Event) []V2Notification {
	changes := p.fold.Apply(ev.Msg)
	var out []V2Notification
	switch ev.Msg.(type) {
	case protocol.ExecApprovalRequestEvent:
		// As Codex 0.169: the thread waits before the command's item starts.
		var starts []items.Change
		for _, ch := range changes {
			if ch.Phase == items.Started {
				starts = append(starts, ch)
			} else {
				out = append(out, p.renderItems([]items.Change{ch}, false)...)
			}
		}
		out = append(out, p.setStatus(active("waitingOnApproval"))...)
		return append(out, p.renderItems(starts, false)...)
	case protocol.ApplyPatchApprovalRequestEvent:
		out = p.renderItems(changes, false)
		return append(out, p.setStatus(active("waitingOnApproval"))...)
	case protocol.AgentReasoningRawContentEvent:
		out = p.renderItems(changes, true)
	default:
		out = p.renderItems(changes, false)
	}
	// Each event is of one group; the others answer nil.
	out = append(out, p.applyTurn(ev.Msg)...)
	out = append(out, p.applyMcp(ev.Msg)...)
	out = append(out, p.applyQuestion(ev.Msg)...)
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

// applyThread handles thread-level reports: diffs, usage, errors, terminal input, reroutes.
func (p *V2Projector) applyThread(msg protocol.EventMsg) []V2Notification {
	switch m := msg.(type) {
	case protocol.TurnDiffEvent:
		p.diff = m.UnifiedDiff
		return []V2Notification{{"turn/diff/updated", V2TurnDiffUpdated{p.threadID, p.turnID(), m.UnifiedDiff}}}
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
		// open, never completed (the fold dropped it), and the retried response's message and
		// reasoning are new items (item/started again).
		e := V2TurnError{Message: m.Message, CodexErrorInfo: V2ErrorInfo(m.CodexErrorInfo), AdditionalDetails: m.AdditionalDetails}
		return []V2Notification{{"error", V2Error{Error: e, WillRetry: true, ThreadID: p.threadID, TurnID: p.turnID()}}}
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
		out = p.renderItems(p.fold.Decline(itemID), false)
	}
	if p.turn != nil {
		out = append(out, p.setStatus(active())...)
	}
	return out
}

// turnStarted opens a turn (the fold dropped the message and completed the reasoning a
// previous response left).
func (p *V2Projector) turnStarted(m protocol.TurnStartedEvent) []V2Notification {
	var out []V2Notification
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

// turnEnded closes the turn. The fold has already dropped or completed what was streaming
// (as Codex 0.169, a message the model never finished, or one cut short, is not part of the
// turn) and failed the calls the turn cut short; what stays open are the exec_command
// sessions a completed turn leaves running in the background.
func (p *V2Projector) turnEnded(status string, terr *V2TurnError) []V2Notification {
	var out []V2Notification
	if p.turn == nil {
		return out
	}
	for id, it := range p.open {
		if _, ok := it.(*V2CommandExecution); ok {
			p.background[id] = p.turn.ID
		}
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
