package agent

import (
	"context"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// turn is one running turn. Its goroutine samples the model and runs tools; the loop may
// steer it (more input) or abort it. mu orders the turn's own events and history writes
// against the end of the turn: once ended is set, nothing of this turn is emitted or
// recorded any more.
type turn struct {
	t        *Thread
	id       string
	ctx      context.Context
	cancel   context.CancelFunc
	s        settings
	finished chan struct{}
	started  time.Time
	registry *tools.Registry
	// opening, for a goal turn, are the items that open it in place of user input.
	opening []protocol.ResponseItem
	// firstToken is when the first output of the turn arrived (only the turn goroutine
	// writes it; complete reads it on the same goroutine or after it).
	firstToken time.Time
	// turnState is the server's x-codex-turn-state token, echoed on every later request of
	// this turn for sticky routing (turn goroutine only).
	turnState string
	// planText splits the assistant message being streamed in plan mode (turn goroutine
	// only).
	planText *planSplitter
	// snap is the turn's progress through its snapshots (snapshots.go).
	snap turnSnapshots
	// rerouteWarned is set once the server-model warning went out (turn goroutine only).
	rerouteWarned bool
	// stopHookActive is set once a Stop hook kept the turn going (turn goroutine only).
	stopHookActive bool

	// toolMu runs exclusive tools one at a time and parallel ones together.
	toolMu sync.RWMutex

	mu    sync.Mutex
	ended bool
	// pending is input that arrived while the turn ran; it joins the next sampling.
	pending []steered
	// open are tool calls recorded in history whose output is not recorded yet.
	open []openCall
	// onAbort are called when the turn is aborted (work running beside it stops with it).
	onAbort []func()
	// leftover is pending input of a turn that ended in an error; the loop starts the next
	// turn with it.
	leftoverID string
	leftover   []protocol.InputItem
}

// steered is what joins a running turn: input the person sent, or items recorded as they
// are (the record of a command the person ran beside the turn).
type steered struct {
	items  []protocol.InputItem
	record []protocol.ResponseItem
}

type openCall struct {
	callID string
	kind   tool.CallKind
	// written is the call's output once it is in the rollout but not yet in history: the
	// person may have seen it, so an abort keeps it rather than saying "aborted".
	written protocol.ResponseItem
}

// steer adds input to a running turn; false means the turn is over and a new one must
// start.
func (tr *turn) steer(items []protocol.InputItem) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.pending = append(tr.pending, steered{items: items})
	return true
}

// inject queues items to be recorded at the next sampling; false means the turn is over.
func (tr *turn) inject(items ...protocol.ResponseItem) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.pending = append(tr.pending, steered{record: items})
	return true
}

// whenAborted registers f to run if the turn is aborted; false means the turn is over.
func (tr *turn) whenAborted(f func()) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.onAbort = append(tr.onAbort, f)
	return true
}

func (tr *turn) takePending() []steered {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	p := tr.pending
	tr.pending = nil
	return p
}

// emit sends an event of this turn unless the turn has ended.
func (tr *turn) emit(msg protocol.EventMsg) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.t.emit(tr.id, msg)
	return true
}

// record appends items to history unless the turn has ended.
func (tr *turn) record(items ...protocol.ResponseItem) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.t.recordItems(items...)
	return true
}

// recordCall records a tool call and remembers that it awaits an output.
func (tr *turn) recordCall(item protocol.ResponseItem, c tool.Call) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return false
	}
	tr.t.recordItems(item)
	tr.open = append(tr.open, openCall{callID: c.CallID, kind: c.Kind})
	return true
}

// recordOutputs records tool outputs and closes their calls: history gets them in call order;
// the rollout gets those not written ahead already.
func (tr *turn) recordOutputs(runs []*callRun) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return
	}
	items := make([]protocol.ResponseItem, 0, len(runs))
	var unwritten []protocol.ResponseItem
	for _, r := range runs {
		out := r.outputItem()
		items = append(items, out)
		if c := tr.closeCall(r.call.CallID); c == nil || c.written == nil {
			unwritten = append(unwritten, out)
		}
		if r.err == nil && len(r.result.FollowUp) > 0 {
			items = append(items, r.result.FollowUp...)
			unwritten = append(unwritten, r.result.FollowUp...)
		}
	}
	tr.t.writeRollout(unwritten...)
	tr.t.hist.append(items...)
}

// writeAhead puts a finished call's output in the rollout before anything showing it leaves
// the engine (the held end events go out right after), so a process killed at any instant
// resumes with the output the person saw. Called with tr.mu held; false once the turn ended.
func (tr *turn) writeAhead(run *callRun) bool {
	if tr.ended {
		return false
	}
	for i := range tr.open {
		if tr.open[i].callID == run.call.CallID && tr.open[i].written == nil {
			out := run.outputItem()
			tr.t.writeRollout(out)
			tr.open[i].written = out
		}
	}
	return true
}

// closeCall forgets an open call, returning what was known of it.
func (tr *turn) closeCall(id string) *openCall {
	for i, c := range tr.open {
		if c.callID == id {
			tr.open = append(tr.open[:i], tr.open[i+1:]...)
			return &c
		}
	}
	return nil
}

// recordUser records user input and announces it.
func (tr *turn) recordUser(items []protocol.InputItem) {
	msg, ev := userInput(items, tr.s.cwd)
	if tr.record(msg) {
		tr.emit(ev)
		tr.record(tr.skillMessages(items)...)
	}
}

// startedEvent opens the turn.
func (tr *turn) startedEvent() protocol.TurnStartedEvent {
	started := tr.started.Unix()
	ts := protocol.TurnStartedEvent{TurnID: tr.id, RootTurnID: tr.id, StartedAt: &started,
		ModelContextWindow: tr.s.info.window(), CollaborationModeKind: modeOf(tr.s.mode)}
	if trig := tr.t.cfg.TurnTrigger; trig != "" {
		ts.TurnAttribution = &protocol.TurnAttribution{TurnID: tr.id, TurnTrigger: trig, RootTurnID: tr.id}
	}
	return ts
}

// run is the turn: record the input, then sample until the model needs nothing more. The
// history is compacted first when it is already over the limit, and between samplings when
// it got there and the model has more to do.
func (tr *turn) run(prelude []protocol.ResponseItem, items []protocol.InputItem) {
	if !tr.emit(tr.startedEvent()) {
		return
	}
	tr.registry = tr.t.buildRegistry(tr.s)
	if tr.t.hist.len() > 0 && tr.overCompactLimit() {
		if !tr.autoCompact(contextFirst) {
			return
		}
		// The rebuilt history opens with the context of this turn's settings.
		prelude = nil
	}
	tr.record(prelude...)
	tr.sessionStartHooks()
	if tr.opening != nil {
		// A goal turn: its opening items stand for the prompt (no user message, no hooks).
		tr.record(tr.opening...)
	} else {
		prompted, ok := tr.userPromptHooks(items)
		if !ok {
			// A UserPromptSubmit hook blocked the prompt: it never reaches the model.
			tr.complete(nil, true)
			return
		}
		tr.recordUser(items)
		tr.recordHookContext(prompted.Context)
	}
	var last *string
	for {
		for _, p := range tr.takePending() {
			if p.record != nil {
				tr.record(p.record...)
				continue
			}
			tr.recordUser(p.items)
		}
		res, err := tr.sample()
		if res.lastMessage != nil {
			last = res.lastMessage
		}
		if tr.ctx.Err() != nil {
			// Interrupted: the loop reports turn_aborted.
			return
		}
		if err != nil {
			tr.fail(err)
			return
		}
		if res.endTurn {
			tr.abort(protocol.AbortInterrupted)
			return
		}
		if (res.followUp || tr.hasPending()) && tr.overCompactLimit() {
			if !tr.autoCompact(contextBeforeLastUser) {
				return
			}
		}
		if res.followUp {
			continue
		}
		if !tr.hasPending() && tr.stopHooks(last) {
			continue
		}
		if tr.complete(last, false) {
			return
		}
	}
}

// autoCompact compacts within a turn; false means the turn is over (interrupted, or the
// compaction failed and the error was reported).
func (tr *turn) autoCompact(place contextPlacement) bool {
	err := tr.compact(place)
	if tr.ctx.Err() != nil {
		return false
	}
	if err != nil {
		tr.fail(err)
		return false
	}
	return true
}

// isEnded reports that the turn has reported its end; the loop may not have heard yet.
func (tr *turn) isEnded() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.ended
}

func (tr *turn) hasPending() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.pending) > 0
}

// complete emits turn_complete, unless input is waiting (then it returns false and the turn
// samples again) or force is set (then the input is handed back to the loop).
func (tr *turn) complete(last *string, force bool) bool {
	return tr.completeWith(last, force, nil)
}

// completeWith is complete for a turn that may have failed: failure, when set, is reported
// in turn_complete's error.
func (tr *turn) completeWith(last *string, force bool, failure *protocol.TurnError) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return true
	}
	if len(tr.pending) > 0 {
		if !force {
			return false
		}
		tr.leftoverID = tr.id
		for _, p := range tr.pending {
			tr.leftover = append(tr.leftover, p.items...)
			tr.t.recordItems(p.record...)
		}
		tr.pending = nil
	}
	tr.takeEndSnapshot()
	now := tr.t.now()
	done := now.Unix()
	dur := now.Sub(tr.started).Milliseconds()
	// The rollout is on disk before the reader learns the turn is over.
	tr.t.flushRecorder()
	startedAt := tr.started.Unix()
	ev := protocol.TurnCompleteEvent{RootTurnID: tr.id, TurnID: tr.id, LastAgentMessage: last,
		StartedAt: &startedAt, CompletedAt: &done, DurationMs: &dur, Error: failure}
	if !tr.firstToken.IsZero() {
		ttft := tr.firstToken.Sub(tr.started).Milliseconds()
		ev.TimeToFirstTokenMs = &ttft
	}
	tr.t.emit(tr.id, ev)
	tr.ended = true
	return true
}

// abortedOutput is what the model is told about a tool call cut short by an interrupt.
const abortedOutput = "aborted"

// abort ends the turn early: open tool calls get an "aborted" output, history notes the
// interruption, and turn_aborted goes out. It is a no-op once the turn has ended.
func (tr *turn) abort(reason protocol.TurnAbortReason) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.ended {
		return
	}
	tr.ended = true
	for _, f := range tr.onAbort {
		f()
	}
	tr.takeEndSnapshot()
	var items, written []protocol.ResponseItem
	for _, c := range tr.open {
		if c.written != nil {
			// Its output is in the rollout and was shown: history keeps it, not "aborted".
			written = append(written, c.written)
			continue
		}
		f := false
		payload := protocol.FunctionCallOutputPayload{Content: abortedOutput, Success: &f}
		if c.kind == tool.CustomCall {
			items = append(items, protocol.CustomToolCallOutputItem{CallID: c.callID, Output: payload})
		} else {
			items = append(items, protocol.FunctionCallOutputItem{CallID: c.callID, Output: payload})
		}
	}
	tr.open = nil
	if reason == protocol.AbortInterrupted {
		items = append(items, textMessage("user", prompt.TurnAbortedText()))
	}
	tr.t.hist.append(written...)
	tr.t.recordItems(items...)
	tr.t.flushRecorder()
	tr.t.emit(tr.id, protocol.TurnAbortedEvent{TurnID: tr.id, Reason: reason})
}

// buildRegistry offers the tools of the turn's model.
func (t *Thread) buildRegistry(s settings) *tools.Registry {
	r := tools.NewRegistry(s.info.Tools, t.cfg.ToolHandlers)
	extra := t.cfg.ExtraTools
	if f := t.cfg.ExtraToolsFunc; f != nil {
		extra = append(extra[:len(extra):len(extra)], f()...)
	}
	for _, h := range extra {
		if err := r.Add(h); err != nil {
			t.log.Warn("tool not offered", "err", err)
		}
	}
	return r
}
