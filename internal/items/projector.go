package items

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

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

// Projector folds the events of one thread into item updates. It is not safe for
// concurrent use; a face owns one per thread and feeds it events in order.
type Projector struct {
	next     int
	commands map[string]*running // by call id
	patches  map[string]*running
	mcpCalls map[string]*running
	searches map[string]*running
	todo     *Item
}

// running is an item that was started and not yet completed, with what it has collected.
type running struct {
	item   Item
	output strings.Builder
}

// NewProjector returns a projector whose first item will be item_0.
func NewProjector() *Projector {
	return &Projector{
		commands: map[string]*running{},
		patches:  map[string]*running{},
		mcpCalls: map[string]*running{},
		searches: map[string]*running{},
	}
}

func (p *Projector) newID() string {
	id := "item_" + strconv.Itoa(p.next)
	p.next++
	return id
}

func (p *Projector) start(calls map[string]*running, callID string, d Details) *running {
	r := &running{item: Item{ID: p.newID(), Details: d}}
	calls[callID] = r
	return r
}

// finish takes the running item for callID, or starts (without announcing) a new one when
// the begin event was never seen.
func (p *Projector) finish(calls map[string]*running, callID string) *running {
	r, ok := calls[callID]
	if !ok {
		return &running{item: Item{ID: p.newID()}}
	}
	delete(calls, callID)
	return r
}

// Apply folds one event in and returns the item updates it causes (often none).
func (p *Projector) Apply(msg protocol.EventMsg) []Update {
	switch ev := msg.(type) {
	case protocol.AgentMessageEvent:
		return p.completedNow(AgentMessageItem{Text: ev.Message})
	case protocol.AgentReasoningEvent:
		return p.completedNow(ReasoningItem{Text: ev.Text})
	case protocol.WarningEvent:
		return p.completedNow(ErrorItem{Message: ev.Message})

	case protocol.ExecCommandBeginEvent:
		r := p.start(p.commands, ev.CallID, CommandExecutionItem{
			Command: JoinCommand(ev.Command), Status: StatusInProgress,
		})
		return []Update{{Started, r.item}}
	case protocol.ExecCommandOutputDeltaEvent:
		if r, ok := p.commands[ev.CallID]; ok {
			r.output.Write(ev.Chunk)
		}
		return nil
	case protocol.ExecCommandEndEvent:
		r := p.finish(p.commands, ev.CallID)
		out := ev.AggregatedOutput
		if out == "" && ev.Stdout == "" && ev.Stderr == "" {
			out = r.output.String()
		}
		code := ev.ExitCode
		r.item.Details = CommandExecutionItem{
			Command: JoinCommand(ev.Command), AggregatedOutput: out, ExitCode: &code,
			Status: commandStatus(ev),
		}
		return []Update{{Completed, r.item}}

	case protocol.PatchApplyBeginEvent:
		r := p.start(p.patches, ev.CallID, FileChangeItem{Changes: fileChanges(ev.Changes), Status: StatusInProgress})
		return []Update{{Started, r.item}}
	case protocol.PatchApplyEndEvent:
		r := p.finish(p.patches, ev.CallID)
		var changes []FileUpdateChange
		if prev, ok := r.item.Details.(FileChangeItem); ok {
			changes = prev.Changes
		}
		if len(ev.Changes) > 0 || changes == nil {
			changes = fileChanges(ev.Changes)
		}
		r.item.Details = FileChangeItem{Changes: changes, Status: patchStatus(ev)}
		return []Update{{Completed, r.item}}

	case protocol.McpToolCallBeginEvent:
		r := p.start(p.mcpCalls, ev.CallID, McpToolCallItem{
			Server: ev.Invocation.Server, Tool: ev.Invocation.Tool,
			Arguments: nullIfEmpty(ev.Invocation.Arguments), Status: StatusInProgress,
		})
		return []Update{{Started, r.item}}
	case protocol.McpToolCallEndEvent:
		r := p.finish(p.mcpCalls, ev.CallID)
		d := McpToolCallItem{
			Server: ev.Invocation.Server, Tool: ev.Invocation.Tool,
			Arguments: nullIfEmpty(ev.Invocation.Arguments), Status: StatusCompleted,
		}
		if ev.Result.Err != nil {
			d.Error = &McpToolCallError{Message: *ev.Result.Err}
			d.Status = StatusFailed
		} else {
			d.Result = mcpResult(ev.Result.Ok)
			if !ev.Result.IsSuccess() {
				d.Status = StatusFailed
			}
		}
		r.item.Details = d
		return []Update{{Completed, r.item}}

	case protocol.WebSearchBeginEvent:
		r := p.start(p.searches, ev.CallID, WebSearchItem{ID: ev.CallID, Action: json.RawMessage(`{"type":"other"}`)})
		return []Update{{Started, r.item}}
	case protocol.WebSearchEndEvent:
		r := p.finish(p.searches, ev.CallID)
		action := ev.Action
		if len(action) == 0 {
			action = json.RawMessage(`{"type":"other"}`)
		}
		r.item.Details = WebSearchItem{ID: ev.CallID, Query: ev.Query, Action: action}
		return []Update{{Completed, r.item}}

	case protocol.PlanUpdateEvent:
		d := TodoListItem{Items: make([]TodoItem, 0, len(ev.Plan))}
		for _, step := range ev.Plan {
			d.Items = append(d.Items, TodoItem{Text: step.Step, Completed: step.Status == protocol.PlanCompleted})
		}
		if p.todo == nil {
			p.todo = &Item{ID: p.newID(), Details: d}
			return []Update{{Started, *p.todo}}
		}
		p.todo.Details = d
		return []Update{{Updated, *p.todo}}

	case protocol.TurnCompleteEvent, protocol.TurnAbortedEvent:
		// The plan lives for one turn: it is completed when the turn ends.
		if p.todo == nil {
			return nil
		}
		done := *p.todo
		p.todo = nil
		return []Update{{Completed, done}}
	}
	return nil
}

func (p *Projector) completedNow(d Details) []Update {
	return []Update{{Completed, Item{ID: p.newID(), Details: d}}}
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
