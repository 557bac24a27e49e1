package items

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/gocodex/gocodex/protocol"
)

// Phase says where an item is in its life.
type Phase string

// The phases, named as the exec JSONL event types name them.
const (
	Started   Phase = "item.started"
	Updated   Phase = "item.updated"
	Completed Phase = "item.completed"
)

// Update is one change of one item.
type Update struct {
	Phase Phase
	Item  Item
}

// Projector renders the fold's changes as the items of `exec --json`: ids "item_<n>" counted
// from 0 in the order the items are announced, a reasoning item for each summary part, a
// to-do list item a turn, and warnings as error items. It is not safe for concurrent use; a
// face owns one per thread and feeds it events in order.
type Projector struct {
	fold *Fold
	next int
	ids  map[string]string // fold item id → announced item id
}

// NewProjector returns a projector whose first item will be item_0.
func NewProjector() *Projector {
	// Messages and reasoning take their exec ids when they are written: the fold's own ids
	// for them would go unused.
	noID := func() string { return "" }
	return &Projector{fold: NewFold(FoldOptions{NewID: noID}), ids: map[string]string{}}
}

func (p *Projector) newID() string {
	id := "item_" + strconv.Itoa(p.next)
	p.next++
	return id
}

// Apply folds one event in and returns the item updates it causes (often none).
func (p *Projector) Apply(msg protocol.EventMsg) []Update {
	var out []Update
	for _, ch := range p.fold.Apply(msg) {
		if u, ok := p.render(ch); ok {
			out = append(out, u)
		}
	}
	return out
}

// render is the exec item of one change, if it has one.
func (p *Projector) render(ch Change) (Update, bool) {
	switch b := ch.Body.(type) {
	case *AgentMessage:
		if ch.Phase == Completed {
			return p.completedNow(AgentMessageItem{Text: b.Text}), true
		}
	case *Reasoning:
		if ch.Phase == Updated && ch.Delta.Kind == DeltaSummaryDone {
			return p.completedNow(ReasoningItem{Text: ch.Delta.Text}), true
		}
	case *Notice:
		if ch.Phase == Completed {
			return p.completedNow(ErrorItem{Message: b.Message}), true
		}
	case *TodoList:
		d := TodoListItem{Items: make([]TodoItem, 0, len(b.Steps))}
		for _, step := range b.Steps {
			d.Items = append(d.Items, TodoItem{Text: step.Step, Completed: step.Status == protocol.PlanCompleted})
		}
		if ch.Phase == Started {
			p.ids[ch.ID] = p.newID()
		}
		id := p.ids[ch.ID]
		if ch.Phase == Completed {
			delete(p.ids, ch.ID)
		}
		return Update{ch.Phase, Item{ID: id, Details: d}}, true
	case *Command, *Patch, *McpCall, *WebSearch, *CollabCall:
		return p.renderTool(ch)
	}
	return Update{}, false
}

// renderTool announces a tool call when it begins and completes it when it ends (a call cut
// short by its turn's end keeps its id, should its end come later).
func (p *Projector) renderTool(ch Change) (Update, bool) {
	begins := ch.Phase == Started || (ch.Phase == Updated && ch.Delta.Kind == DeltaBegun)
	switch {
	case begins && began(ch.Body):
		id := p.newID()
		p.ids[ch.ID] = id
		return Update{Started, Item{ID: id, Details: startedDetails(ch)}}, true
	case ch.Phase == Completed && !ch.CutShort:
		id, announced := p.ids[ch.ID]
		if !announced {
			id = p.newID()
		}
		delete(p.ids, ch.ID)
		return Update{Completed, Item{ID: id, Details: completedDetails(ch, announced)}}, true
	}
	return Update{}, false
}

// began reports whether a tool call began running (not only asked for approval).
func began(b Body) bool {
	switch b := b.(type) {
	case *Command:
		return b.Begun
	case *Patch:
		return b.Begun
	}
	return true
}

func startedDetails(ch Change) Details {
	switch b := ch.Body.(type) {
	case *Command:
		return CommandExecutionItem{Command: JoinCommand(b.Argv), Status: StatusInProgress}
	case *Patch:
		return FileChangeItem{Changes: fileChanges(b.Changes), Status: StatusInProgress}
	case *McpCall:
		return McpToolCallItem{Server: b.Invocation.Server, Tool: b.Invocation.Tool,
			Arguments: nullIfEmpty(b.Invocation.Arguments), Status: StatusInProgress}
	case *CollabCall:
		return collabDetails(b)
	}
	return WebSearchItem{ID: ch.ID, Action: json.RawMessage(`{"type":"other"}`)}
}

// completedDetails is the finished call; announced says it was started in the stream (the
// streamed output and the begin's files count only then).
func completedDetails(ch Change, announced bool) Details {
	switch b := ch.Body.(type) {
	case *Command:
		out := b.AggregatedOutput
		if out == "" && b.Stdout == "" && b.Stderr == "" && announced {
			out = b.Output()
		}
		return CommandExecutionItem{Command: JoinCommand(b.Argv), AggregatedOutput: out, ExitCode: b.ExitCode, Status: b.Status}
	case *Patch:
		changes := b.Changes
		if !announced {
			changes = b.Reported
		}
		return FileChangeItem{Changes: fileChanges(changes), Status: b.Status}
	case *McpCall:
		d := McpToolCallItem{Server: b.Invocation.Server, Tool: b.Invocation.Tool,
			Arguments: nullIfEmpty(b.Invocation.Arguments), Status: b.Status}
		if b.Result.Err != nil {
			d.Error = &McpToolCallError{Message: *b.Result.Err}
		} else {
			d.Result = mcpResult(b.Result.Ok)
		}
		return d
	case *CollabCall:
		return collabDetails(b)
	}
	w := ch.Body.(*WebSearch)
	action := w.Action
	if len(action) == 0 {
		action = json.RawMessage(`{"type":"other"}`)
	}
	return WebSearchItem{ID: ch.ID, Query: w.Query, Action: action}
}

func (p *Projector) completedNow(d Details) Update {
	return Update{Completed, Item{ID: p.newID(), Details: d}}
}

func commandStatus(ev protocol.ExecCommandEndEvent) Status {
	switch ev.Status {
	case protocol.ExecDeclined:
		return StatusDeclined
	case protocol.ExecFailed:
		return StatusFailed
	case protocol.ExecCompleted:
		return StatusCompleted
	}
	if ev.ExitCode == 0 {
		return StatusCompleted
	}
	return StatusFailed
}

func patchStatus(ev protocol.PatchApplyEndEvent) Status {
	switch ev.Status {
	case protocol.PatchDeclined:
		return StatusDeclined
	case protocol.PatchFailed:
		return StatusFailed
	case protocol.PatchCompleted:
		return StatusCompleted
	}
	if ev.Success {
		return StatusCompleted
	}
	return StatusFailed
}

// fileChanges lists a patch's files in path order (the map has none of its own).
func fileChanges(m map[string]protocol.FileChange) []FileUpdateChange {
	out := make([]FileUpdateChange, 0, len(m))
	for path, ch := range m {
		out = append(out, FileUpdateChange{Path: path, Kind: ch.Kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func nullIfEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// mcpResult reads the content blocks and structured content of a CallToolResult.
func mcpResult(ok json.RawMessage) *McpToolCallResult {
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	_ = json.Unmarshal(ok, &res)
	if res.Content == nil {
		res.Content = []json.RawMessage{}
	}
	return &McpToolCallResult{Content: res.Content, StructuredContent: nullIfEmpty(res.StructuredContent)}
}
