package items

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// Dropped is the phase of an item the fold forgets without completing it: an agent message
// or reasoning whose response was cut short (retried, interrupted, failed) or replaced.
const Dropped Phase = "item.dropped"

// Delta says what an Updated change added or changed.
type Delta struct {
	Kind DeltaKind
	// Text is the streamed text (message, summary, content, plan) or, for a part that is
	// done, its whole text.
	Text string
	// Chunk is a command's output chunk (bytes as the engine sent them).
	Chunk []byte
	// Index is the summary or content part the delta belongs to.
	Index int
}

// DeltaKind names what an Updated change is about.
type DeltaKind int

// The kinds of update.
const (
	// DeltaNone: the item's state changed as a whole (a new plan).
	DeltaNone DeltaKind = iota
	// DeltaText: more of an agent message or of a proposed plan.
	DeltaText
	// DeltaSummary: more of reasoning summary part Index.
	DeltaSummary
	// DeltaSummaryPart: reasoning summary part Index was opened (a section break).
	DeltaSummaryPart
	// DeltaSummaryDone: reasoning summary part Index is whole (Text).
	DeltaSummaryDone
	// DeltaContent: more of raw reasoning content part Index.
	DeltaContent
	// DeltaContentDone: raw reasoning content part Index is whole (Text).
	DeltaContentDone
	// DeltaOutput: a chunk of a command's output.
	DeltaOutput
	// DeltaBegun: a command or patch that waited for approval began.
	DeltaBegun
)

// Change is one step in the life of one item.
type Change struct {
	Phase Phase
	// ID is the item's id: the call id of a tool call, the engine's id of an item it named,
	// TodoListID for the to-do list, "" for a notice, otherwise one from FoldOptions.NewID.
	ID   string
	Body Body
	// Delta is what an Updated change brought.
	Delta Delta
	// CutShort marks a Completed change made by the end of the turn, not by the item's own
	// end: the call was cut short.
	CutShort bool
	// Refused marks a Completed change made by Decline: the person refused the call.
	Refused bool
}

// TodoListID is the id of a turn's to-do list (there is one at a time).
const TodoListID = "todo_list"

// FoldOptions configures a Fold.
type FoldOptions struct {
	// NewID names items the engine gave no id (messages, reasoning, user messages, review
	// marks); nil counts "item_0", "item_1"…
	NewID func() string
	// NoStreamCopies: the fold keeps no copy of what an agent message's deltas and a
	// command's output deltas stream (Streamed and Output stay empty). A face that passes the
	// deltas on as they come and reads the items whole (the app-server, the TUI) saves the
	// memory of a long answer or a noisy command.
	NoStreamCopies bool
}

// Fold turns one thread's events into item changes: it pairs begin and end events, keeps
// what the deltas stream, and decides when an item starts, changes, completes or is dropped.
// Every face renders these changes; turn-level events (turn started and completed, token
// counts, approvals' answers, errors, session configuration) stay with the faces. Not safe for
// concurrent use.
type Fold struct {
	newID  func() string
	next   int
	copies bool // keep what message and output deltas stream

	open  map[string]*openItem
	order []string // ids of open tool items, in the order they started

	agent  *openItem // the agent message being streamed
	reason *openItem // the reasoning being streamed
	todo   *openItem // this turn's to-do list

	turnRunning bool
	turnErrored bool // an error event came in the running turn

	out []Change // reused by Apply
}

type openItem struct {
	id   string
	body Body
}

// NewFold returns a fold with no item yet.
func NewFold(o FoldOptions) *Fold {
	f := &Fold{newID: o.NewID, open: map[string]*openItem{}, copies: !o.NoStreamCopies}
	if f.newID == nil {
		f.newID = func() string {
			id := "item_" + strconv.Itoa(f.next)
			f.next++
			return id
		}
	}
	return f
}

// Open returns the call open under id (a command, patch, MCP call, web search, hook run,
// compaction or proposed plan that started and has not ended); messages, reasoning and the
// to-do list are not looked up by id.
func (f *Fold) Open(id string) (Body, bool) {
	it, ok := f.open[id]
	if !ok {
		return nil, false
	}
	return it.body, true
}

func (f *Fold) emit(phase Phase, it *openItem) {
	f.out = append(f.out, Change{Phase: phase, ID: it.id, Body: it.body})
}

func (f *Fold) update(it *openItem, d Delta) {
	f.out = append(f.out, Change{Phase: Updated, ID: it.id, Body: it.body, Delta: d})
}

// startTool opens a tool item under its call id. An item already open under that id (the
// engine reused it) is dropped first, so that each start has one end.
func (f *Fold) startTool(id string, body Body) *openItem {
	if old, ok := f.open[id]; ok {
		f.forget(id)
		f.emit(Dropped, old)
	}
	it := &openItem{id: id, body: body}
	f.open[id] = it
	f.order = append(f.order, id)
	f.emit(Started, it)
	return it
}

// endTool takes the open item id, or a fresh one of the given body when it never started
// (the engine reported only the end).
func (f *Fold) endTool(id string, fresh Body) *openItem {
	it, ok := f.open[id]
	if !ok {
		return &openItem{id: id, body: fresh}
	}
	f.forget(id)
	return it
}

func (f *Fold) forget(id string) {
	delete(f.open, id)
	for i, o := range f.order {
		if o == id {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
}

// instant starts and completes an item at once (dropping an open item of the same id).
func (f *Fold) instant(id string, body Body) {
	if old, ok := f.open[id]; ok && id != "" {
		f.forget(id)
		f.emit(Dropped, old)
	}
	it := &openItem{id: id, body: body}
	f.emit(Started, it)
	f.emit(Completed, it)
}

// closeReasoning completes the reasoning being streamed.
func (f *Fold) closeReasoning() {
	if f.reason != nil {
		f.emit(Completed, f.reason)
		f.reason = nil
	}
}

// dropAgent forgets the agent message being streamed.
func (f *Fold) dropAgent() {
	if f.agent != nil {
		f.emit(Dropped, f.agent)
		f.agent = nil
	}
}

func (f *Fold) dropStreams() {
	f.dropAgent()
	if f.reason != nil {
		f.emit(Dropped, f.reason)
		f.reason = nil
	}
}

func (f *Fold) agentMessage() *openItem {
	if f.agent == nil {
		f.agent = &openItem{id: f.newID(), body: &AgentMessage{}}
		f.emit(Started, f.agent)
	}
	return f.agent
}

func (f *Fold) reasoning() (*openItem, *Reasoning) {
	if f.reason == nil {
		f.reason = &openItem{id: f.newID(), body: &Reasoning{}}
		f.emit(Started, f.reason)
	}
	return f.reason, f.reason.body.(*Reasoning)
}

// Apply folds one event in and returns the item changes it causes, in order (often none).
// The slice is reused by the next call.
func (f *Fold) Apply(msg protocol.EventMsg) []Change {
	f.out = f.out[:0]
	switch m := msg.(type) {
	case protocol.AgentMessageDeltaEvent:
		f.closeReasoning()
		it := f.agentMessage()
		if f.copies {
			it.body.(*AgentMessage).streamed.WriteString(m.Delta)
		}
		f.update(it, Delta{Kind: DeltaText, Text: m.Delta})
	case protocol.AgentMessageEvent:
		f.closeReasoning()
		it := f.agentMessage()
		a := it.body.(*AgentMessage)
		a.Text, a.Phase = m.Message, m.Phase
		f.agent = nil
		f.emit(Completed, it)
	case protocol.AgentReasoningDeltaEvent, protocol.AgentReasoningSectionBreakEvent, protocol.AgentReasoningEvent,
		protocol.AgentReasoningRawContentDeltaEvent, protocol.AgentReasoningRawContentEvent:
		f.applyReasoning(msg)
	case protocol.UserMessageEvent:
		f.instant(f.newID(), &UserMessage{Event: m})
	case protocol.WarningEvent:
		f.instant("", &Notice{Message: m.Message})
	case protocol.ViewImageToolCallEvent:
		f.instant(m.CallID, &ImageView{Path: m.Path})
	case protocol.EnteredReviewModeEvent:
		f.closeReasoning()
		f.instant(f.newID(), &ReviewMode{Hint: m.UserFacingHint})
	case protocol.ExitedReviewModeEvent:
		f.closeReasoning()
		f.instant(f.newID(), &ReviewMode{Exited: true, Output: m.ReviewOutput})
	case protocol.PlanUpdateEvent:
		f.applyTodo(m)
	case protocol.ItemStartedEvent, protocol.ItemCompletedEvent, protocol.PlanDeltaEvent:
		f.applyEngineItem(msg)
	case protocol.TurnStartedEvent:
		f.dropAgent()
		f.closeReasoning()
		f.turnRunning, f.turnErrored = true, false
	case protocol.RequestUserInputEvent:
		f.closeReasoning() // a question to the person ends the reasoning
	case protocol.ErrorEvent:
		if f.turnRunning {
			f.turnErrored = true
		}
	case protocol.StreamErrorEvent:
		f.dropStreams()
	case protocol.TurnCompleteEvent:
		f.turnEnded(m.Error == nil)
	case protocol.TurnAbortedEvent:
		f.turnEnded(false)
	default:
		f.applyTool(msg)
	}
	return f.out
}

func (f *Fold) applyReasoning(msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.AgentReasoningDeltaEvent:
		it, r := f.reasoning()
		for len(r.summary) <= r.part {
			r.summary = append(r.summary, strings.Builder{})
		}
		r.summary[r.part].WriteString(m.Delta)
		f.update(it, Delta{Kind: DeltaSummary, Text: m.Delta, Index: r.part})
	case protocol.AgentReasoningSectionBreakEvent:
		it, r := f.reasoning()
		r.part++
		f.update(it, Delta{Kind: DeltaSummaryPart, Index: r.part})
	case protocol.AgentReasoningEvent:
		it, r := f.reasoning()
		r.summary = setPart(r.summary, r.part, m.Text)
		f.update(it, Delta{Kind: DeltaSummaryDone, Text: m.Text, Index: r.part})
		r.part++
	case protocol.AgentReasoningRawContentDeltaEvent:
		it, r := f.reasoning()
		if len(r.content) == 0 {
			r.content = append(r.content, strings.Builder{})
		}
		r.content[len(r.content)-1].WriteString(m.Delta)
		f.update(it, Delta{Kind: DeltaContent, Text: m.Delta, Index: len(r.content) - 1})
	case protocol.AgentReasoningRawContentEvent:
		it, r := f.reasoning()
		i := len(r.content) - 1
		if i < 0 {
			i = 0
		}
		r.content = setPart(r.content, i, m.Text)
		f.update(it, Delta{Kind: DeltaContentDone, Text: m.Text, Index: i})
	}
}

func (f *Fold) applyTodo(m protocol.PlanUpdateEvent) {
	body := &TodoList{Explanation: m.Explanation, Steps: m.Plan}
	if f.todo == nil {
		f.todo = &openItem{id: TodoListID, body: body}
		f.emit(Started, f.todo)
		return
	}
	f.todo.body = body
	f.update(f.todo, Delta{})
}

// applyEngineItem handles the items the engine itself names: context compactions, plan
// mode's proposed plan, and the start of an agent message.
func (f *Fold) applyEngineItem(msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.ItemStartedEvent:
		kind, id, text := engineItem(m.Item)
		if b := collabBody(m.Item, kind); b != nil {
			f.closeReasoning()
			f.startTool(id, b)
			return
		}
		switch kind {
		case "contextcompaction":
			f.closeReasoning()
			f.startTool(id, &Compaction{})
		case "Plan":
			// The plan interrupts the message streaming around it, which goes on after.
			f.startTool(id, &ProposedPlan{Text: text})
		case "AgentMessage":
			if f.agent != nil && (id == "" || id == f.agent.id) {
				return
			}
			if id == "" {
				id = f.newID()
			}
			// A message the model began and never finished is dropped.
			f.dropAgent()
			f.closeReasoning()
			f.agent = &openItem{id: id, body: &AgentMessage{}}
			f.emit(Started, f.agent)
		}
	case protocol.ItemCompletedEvent:
		kind, id, text := engineItem(m.Item)
		if b := collabBody(m.Item, kind); b != nil {
			it := f.endTool(id, b)
			it.body = b
			f.emit(Completed, it)
			return
		}
		switch kind {
		case "contextcompaction":
			it := f.endTool(id, &Compaction{})
			if _, ok := it.body.(*Compaction); !ok {
				it.body = &Compaction{}
			}
			f.emit(Completed, it)
		case "Plan":
			it := f.endTool(id, &ProposedPlan{})
			it.body = &ProposedPlan{Text: text}
			f.emit(Completed, it)
		}
	case protocol.PlanDeltaEvent:
		it, ok := f.open[m.ItemID]
		if !ok {
			it = &openItem{id: m.ItemID, body: &ProposedPlan{}}
		}
		if p, ok := it.body.(*ProposedPlan); ok {
			p.Text += m.Delta
		}
		f.update(it, Delta{Kind: DeltaText, Text: m.Delta})
	}
}

// engineItem reads the type, id and text of an item the engine reports; a context
// compaction's type is lowercased (its spelling varies).
func engineItem(raw json.RawMessage) (kind, id, text string) {
	var it struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return "", "", ""
	}
	if strings.EqualFold(it.Type, "contextCompaction") {
		it.Type = "contextcompaction"
	}
	return it.Type, it.ID, it.Text
}

// turnEnded closes what the turn leaves: the streams (completed reasoning when the turn
// succeeded, dropped otherwise), the tool calls it cut short (except the exec_command
// sessions a successful turn leaves running) and the to-do list.
func (f *Fold) turnEnded(succeeded bool) {
	if succeeded {
		f.dropAgent()
		f.closeReasoning()
	} else {
		f.dropStreams()
	}
	if f.turnRunning {
		keep := f.order[:0:0]
		for _, id := range f.order {
			it, ok := f.open[id]
			if !ok {
				continue
			}
			if c, ok := it.body.(*Command); ok && c.ProcessID != "" && succeeded && !f.turnErrored {
				keep = append(keep, id) // a background session: it completes when it ends
				continue
			}
			switch b := it.body.(type) {
			case *Command:
				b.Status = StatusFailed
			case *Patch:
				b.Status = StatusFailed
			case *McpCall:
				b.Status = StatusFailed
			}
			delete(f.open, id)
			f.out = append(f.out, Change{Phase: Completed, ID: id, Body: it.body, CutShort: true})
		}
		f.order = keep
	}
	f.turnRunning, f.turnErrored = false, false
	if f.todo != nil {
		f.emit(Completed, f.todo)
		f.todo = nil
	}
}

// Decline completes, as declined, the command or patch id that waited for an approval the
// person refused (the engine reports no end for it). It returns nil for any other id.
func (f *Fold) Decline(id string) []Change {
	f.out = f.out[:0]
	it, ok := f.open[id]
	if !ok {
		return nil
	}
	switch b := it.body.(type) {
	case *Command:
		b.Status = StatusDeclined
	case *Patch:
		b.Status = StatusDeclined
	default:
		return nil
	}
	f.forget(id)
	f.out = append(f.out, Change{Phase: Completed, ID: id, Body: it.body, Refused: true})
	return f.out
}

// StreamsTextOnly reports an event that only streams text: a message, reasoning or command
// output delta. A face that renders items whole (exec's writers) may leave such events out
// of the fold; the items then start with their first whole part instead of their first delta,
// and their Streamed text and Output stay empty.
func StreamsTextOnly(msg protocol.EventMsg) bool {
	switch msg.(type) {
	case protocol.AgentMessageDeltaEvent, protocol.AgentReasoningDeltaEvent,
		protocol.AgentReasoningRawContentDeltaEvent, protocol.ExecCommandOutputDeltaEvent:
		return true
	}
	return false
}
