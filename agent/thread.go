package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/protocol"
)

// submissionCapacity bounds the submission queue, as Codex does; Submit waits when it is
// full.
const submissionCapacity = 512

// abortGrace is how long an interrupt waits for the turn to wind down before it reports the
// turn aborted anyway.
const abortGrace = 100 * time.Millisecond

// Thread is one conversation. Its methods are safe for concurrent use.
type Thread struct {
	id     string
	cfg    ThreadConfig
	log    *slog.Logger
	now    func() time.Time
	subs   chan protocol.Submission
	events *eventQueue
	done   chan struct{}
	// ctx is canceled when the loop exits, ending anything still running.
	ctx    context.Context
	cancel context.CancelFunc

	hist history

	recMu     sync.Mutex
	recWarned bool

	approvals waiters[protocol.ReviewDecision]
	questions waiters[protocol.RequestUserInputResponse]
	// reviewer is the running review's thread: answers to its requests go to it (guarded
	// by apMu).
	apMu     sync.Mutex
	reviewer *Thread
	// isReviewer marks a review's own thread, whose context is the rubric and environment.
	isReviewer bool
	// sessionHooksRan is set once the SessionStart hooks have run (hooks_turn.go).
	sessionHooksRan atomic.Bool

	usageMu    sync.Mutex
	totalUsage protocol.TokenUsage
	lastUsage  protocol.TokenUsage
	hasUsage   bool
	rateLimits *protocol.RateLimitSnapshot

	// Owned by the loop goroutine.
	settings settings
	ctxState contextState
	turn     *turn
	turnDone chan *turn
}

// ID returns the thread id (a UUIDv7), which is also the session id.
func (t *Thread) ID() string { return t.id }

// BackgroundTerminals are the thread's running exec_command sessions (nil without any tools
// that keep them).
func (t *Thread) BackgroundTerminals() BackgroundTerminals { return t.cfg.BackgroundTerminals }

// Done is closed when the thread has shut down.
func (t *Thread) Done() <-chan struct{} { return t.done }

// Submit queues op under a new submission id and returns the id; the events answering it
// carry the same id. It waits while the submission queue is full.
func (t *Thread) Submit(op protocol.Op) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("submission id: %w", err)
	}
	return id.String(), t.SubmitWithID(id.String(), op)
}

// SubmitWithID queues op under a caller-chosen submission id (the proto face passes the
// client's ids through).
func (t *Thread) SubmitWithID(id string, op protocol.Op) error {
	if op == nil {
		return fmt.Errorf("submit: nil op")
	}
	select {
	case <-t.done:
		return ErrThreadClosed
	default:
	}
	select {
	case t.subs <- protocol.Submission{ID: id, Op: op}:
		return nil
	case <-t.done:
		return ErrThreadClosed
	}
}

// NextEvent returns the next event, waiting until one is ready or ctx ends. After
// shutdown_complete has been read it returns ErrThreadClosed.
func (t *Thread) NextEvent(ctx context.Context) (protocol.Event, error) {
	return t.events.next(ctx)
}

// emit records and queues an event of the loop (not of a turn).
func (t *Thread) emit(id string, msg protocol.EventMsg) {
	ev := protocol.Event{ID: id, Msg: msg}
	t.logEvent(id, msg)
	if t.cfg.Recorder != nil {
		t.recMu.Lock()
		err := t.cfg.Recorder.RecordEvent(ev)
		t.recMu.Unlock()
		t.recorderFailed(id, err)
	}
	t.events.push(ev)
}

// emitUnlessClosed emits an event that may arrive after shutdown (from a background tool):
// once the thread is closed it is neither recorded nor queued.
func (t *Thread) emitUnlessClosed(id string, msg protocol.EventMsg) {
	if t.events.isClosed() {
		return
	}
	t.emit(id, msg)
}

// recordItems appends to history after handing the items to the recorder.
func (t *Thread) recordItems(items ...protocol.ResponseItem) {
	if len(items) == 0 {
		return
	}
	t.writeRollout(items...)
	t.hist.append(items...)
}

// writeRollout hands items to the recorder only: a tool's output is written ahead of its end
// event, and joins the history later, in call order (see turn.writeAhead).
func (t *Thread) writeRollout(items ...protocol.ResponseItem) {
	if t.cfg.Recorder == nil || len(items) == 0 {
		return
	}
	t.recMu.Lock()
	err := t.cfg.Recorder.RecordItems(items)
	t.recMu.Unlock()
	t.recorderFailed("", err)
}

// recorderFailed reports the first recorder error as a warning; later ones are logged.
func (t *Thread) recorderFailed(id string, err error) {
	if err == nil {
		return
	}
	t.recMu.Lock()
	first := !t.recWarned
	t.recWarned = true
	t.recMu.Unlock()
	t.log.Error("rollout recorder failed", "thread", t.id, "err", err)
	if first {
		t.events.push(protocol.Event{ID: id, Msg: protocol.WarningEvent{Message: "Failed to record the session: " + err.Error()}})
	}
}

func (t *Thread) flushRecorder() {
	if t.cfg.Recorder == nil {
		return
	}
	t.recMu.Lock()
	err := t.cfg.Recorder.Flush()
	t.recMu.Unlock()
	t.recorderFailed("", err)
}

// run is the submission loop.
func (t *Thread) run() {
	defer close(t.done)
	defer t.cancel()
	for {
		select {
		case sub := <-t.subs:
			if t.handle(sub) {
				return
			}
		case tr := <-t.turnDone:
			if t.turn == tr {
				t.turn = nil
				// Input that arrived as the turn was ending starts the next turn.
				if len(tr.leftover) > 0 {
					t.startTurn(tr.leftoverID, tr.leftover, nil)
				}
			}
		}
	}
}

// handle dispatches one submission; it returns true when the thread is shutting down.
func (t *Thread) handle(sub protocol.Submission) bool {
	switch op := sub.Op.(type) {
	case protocol.UserInputOp:
		t.userInput(sub.ID, op.Items, op.FinalOutputJSONSchema)
	case protocol.UserTurnOp:
		t.applyOverrides(&op.Cwd, &op.ApprovalPolicy, &op.SandboxPolicy, &op.Model, &op.Effort, &op.Summary)
		t.applyCollaborationMode(op.CollaborationMode)
		t.userInput(sub.ID, op.Items, op.FinalOutputJSONSchema)
	case protocol.OverrideTurnContextOp:
		t.applyOverrides(op.Cwd, op.ApprovalPolicy, op.SandboxPolicy, op.Model, op.Effort, op.Summary)
		t.applyCollaborationMode(op.CollaborationMode)
		if op.ServiceTier != nil {
			t.settings.serviceTier = *op.ServiceTier
		}
	case protocol.InterruptOp:
		if f := t.cfg.OnInterrupt; f != nil {
			f() // the thread's sub-agents stop with it
		}
		t.interrupt(protocol.AbortInterrupted)
	case protocol.ExecApprovalOp:
		t.answerApproval(op.ID, op.Decision)
	case protocol.PatchApprovalOp:
		t.answerApproval(op.ID, op.Decision)
	case protocol.UserInputAnswerOp:
		t.answerUserInput(op.ID, op.Response)
	case protocol.AddToHistoryOp:
		if t.cfg.History != nil {
			if err := t.cfg.History.Append(t.id, op.Text); err != nil {
				t.log.Warn("message history append failed", "err", err)
			}
		}
	case protocol.GetHistoryEntryRequestOp:
		resp := protocol.GetHistoryEntryResponseEvent{Offset: op.Offset, LogID: op.LogID}
		if t.cfg.History != nil {
			if e, ok := t.cfg.History.Lookup(op.LogID, op.Offset); ok {
				resp.Entry = e
			}
		}
		t.emit(sub.ID, resp)
	case protocol.ListMcpToolsOp:
		t.emit(sub.ID, t.listMcpTools())
	case protocol.CompactOp:
		t.startCompact(sub.ID)
	case protocol.ThreadRollbackOp:
		t.rollback(sub.ID, op.NumTurns)
	case protocol.InjectItemsOp:
		t.injectItems(sub.ID, op.Items)
	case protocol.GoalTurnOp:
		t.startGoalTurn(sub.ID, op.Items)
	case protocol.ReviewOp:
		t.startReview(sub.ID, op.ReviewRequest)
	case protocol.RunUserShellCommandOp:
		t.startUserShell(sub.ID, op.Command)
	case protocol.CleanBackgroundTerminalsOp:
		if f := t.cfg.OnCleanBackgroundTerminals; f != nil {
			f()
		}
	case protocol.ShutdownOp:
		t.interrupt(protocol.AbortInterrupted)
		t.flushRecorder()
		t.emit(sub.ID, protocol.ShutdownCompleteEvent{})
		t.events.close()
		return true
	default:
		t.emit(sub.ID, protocol.ErrorEvent{Message: fmt.Sprintf("unsupported op: %s", sub.Op.OpType())})
	}
	return false
}

// listMcpTools asks the MCP client manager; without one every map is empty.
func (t *Thread) listMcpTools() protocol.McpListToolsResponseEvent {
	if f := t.cfg.ListMcpTools; f != nil {
		return f(t.ctx)
	}
	empty := map[string]json.RawMessage{}
	return protocol.McpListToolsResponseEvent{Tools: empty, Resources: empty, ResourceTemplates: empty, AuthStatuses: empty}
}

// applyOverrides changes the settings later turns use; nil leaves a setting alone.
func (t *Thread) applyOverrides(cwd *string, ap *protocol.AskForApproval, sp *protocol.SandboxPolicy, mdl, effort, summary *string) {
	s := &t.settings
	if cwd != nil && *cwd != "" {
		s.cwd = *cwd
	}
	if ap != nil {
		s.approval = *ap
	}
	if sp != nil {
		s.sandbox = *sp
	}
	if mdl != nil && *mdl != "" && *mdl != s.model {
		s.model = *mdl
		if t.cfg.Catalog != nil {
			s.info = t.cfg.Catalog(*mdl)
		}
	}
	if effort != nil {
		s.effort = *effort
	}
	if summary != nil {
		s.summary = *summary
	}
	if rec, ok := t.cfg.Recorder.(SettingsRecorder); ok {
		rec.RecordTurnSettings(TurnSettings{Cwd: s.cwd, Model: s.model, ApprovalPolicy: s.approval,
			SandboxPolicy: s.sandbox, Effort: s.effort, Summary: s.summary})
	}
}

// userInput steers the running turn (a schema then has no effect), or starts a turn.
func (t *Thread) userInput(id string, items []protocol.InputItem, schema []byte) {
	if tr := t.turn; tr != nil && tr.steer(items) {
		return
	}
	t.startTurn(id, items, schema)
}

// startTurn starts a turn goroutine for the input. schema, when set, constrains this turn's
// final answer instead of the thread's default.
func (t *Thread) startTurn(id string, items []protocol.InputItem, schema []byte) {
	s := t.settings
	if schema != nil {
		s.outputSchema = schema
	}
	tr := t.newTurn(id, s)
	prelude := t.contextItems(s)
	t.launch(tr, func() { tr.run(prelude, items) })
}

// startCompact runs the compact op as a turn of its own. A running turn is replaced, as in
// Codex.
func (t *Thread) startCompact(id string) {
	t.interrupt(protocol.AbortReplaced)
	tr := t.newTurn(id, t.settings)
	prelude := t.contextItems(tr.s)
	t.launch(tr, func() { tr.runCompact(prelude) })
}

func (t *Thread) newTurn(id string, s settings) *turn {
	ctx, cancel := context.WithCancel(t.ctx)
	return &turn{
		t:        t,
		id:       id,
		ctx:      ctx,
		cancel:   cancel,
		s:        s,
		finished: make(chan struct{}),
		started:  t.now(),
	}
}

// launch makes tr the running turn and runs body in its goroutine.
func (t *Thread) launch(tr *turn, body func()) {
	t.turn = tr
	go func() {
		defer close(tr.finished)
		defer tr.cancel()
		body()
		select {
		case t.turnDone <- tr:
		case <-t.done:
		}
	}()
}

// interrupt aborts the running turn: its context is canceled, it gets abortGrace to wind
// down, and then it is reported aborted whether or not it has finished.
func (t *Thread) interrupt(reason protocol.TurnAbortReason) {
	tr := t.turn
	if tr == nil {
		return
	}
	tr.cancel()
	timer := time.NewTimer(abortGrace)
	select {
	case <-tr.finished:
	case <-timer.C:
	}
	timer.Stop()
	tr.abort(reason)
	t.turn = nil
}

// requestApproval emits the request and waits for the answer. The first answer wins; an
// interrupt answers abort.
func (t *Thread) requestApproval(ctx context.Context, tr *turn, id string, msg protocol.EventMsg) (protocol.ReviewDecision, error) {
	d, err := t.approvals.ask(ctx, tr, id, msg)
	if err != nil {
		return protocol.ReviewDecision{Kind: protocol.DecisionAbort}, err
	}
	return d, nil
}

// answerApproval handles an approval answer. Abort means "stop everything", as in Codex:
// the turn is interrupted, so the waiting tool sees its context end and its call gets the
// "aborted" output.
func (t *Thread) answerApproval(id string, d protocol.ReviewDecision) {
	if d.Kind == protocol.DecisionAbort {
		t.interrupt(protocol.AbortInterrupted)
		return
	}
	t.resolveApproval(id, d)
}

// resolveApproval delivers an answer to the waiting request, if any; a second answer to the
// same request finds no waiter and is ignored.
func (t *Thread) resolveApproval(id string, d protocol.ReviewDecision) {
	if !t.approvals.answer(id, d) {
		if t.forwardToReviewer(protocol.ExecApprovalOp{ID: id, Decision: d}) {
			return
		}
		t.log.Debug("approval answer without a pending request", "id", id)
	}
}

// addUsage folds a response's usage into the totals and returns the token_count payload.
func (t *Thread) addUsage(u *protocol.TokenUsage, window *int64) protocol.TokenCountEvent {
	t.usageMu.Lock()
	defer t.usageMu.Unlock()
	if u != nil {
		t.totalUsage = t.totalUsage.Add(*u)
		t.lastUsage = *u
		t.hasUsage = true
	}
	limits := t.rateLimits
	if limits == nil {
		// Without rate-limit headers Codex still reports its default limit, empty.
		id := "codex"
		limits = &protocol.RateLimitSnapshot{LimitID: &id}
	}
	ev := protocol.TokenCountEvent{RateLimits: limits}
	if t.hasUsage {
		ev.Info = &protocol.TokenUsageInfo{TotalTokenUsage: t.totalUsage, LastTokenUsage: t.lastUsage, ModelContextWindow: window}
	}
	return ev
}

// tokensInUse is how full the context is: the last response's total plus an estimate of
// what was added after the model last spoke.
func (t *Thread) tokensInUse() int64 {
	t.usageMu.Lock()
	last, known := t.lastUsage.TotalTokens, t.hasUsage
	t.usageMu.Unlock()
	if !known {
		// No response has reported usage (a resumed thread without its last token_count,
		// or a provider that sends none): estimate everything.
		return estimateTokens(t.hist.snapshot())
	}
	return last + t.hist.uncountedTokens()
}

// estimateUsage replaces the last usage with an estimate of the whole history (after the
// history was rebuilt) and returns the token_count payload reporting it.
func (t *Thread) estimateUsage(window *int64) protocol.TokenCountEvent {
	est := estimateTokens(t.hist.snapshot())
	t.usageMu.Lock()
	t.lastUsage = protocol.TokenUsage{TotalTokens: est}
	t.hasUsage = true
	t.usageMu.Unlock()
	ev := t.addUsage(nil, window)
	ev.Info.LastUsageIncludesReasoning = true
	return ev
}

func (t *Thread) setRateLimits(s protocol.RateLimitSnapshot) {
	t.usageMu.Lock()
	t.rateLimits = &s
	t.usageMu.Unlock()
}

// logEvent writes the errors a thread reports to the face's log.
func (t *Thread) logEvent(id string, msg protocol.EventMsg) {
	if t.log == nil {
		return
	}
	switch m := msg.(type) {
	case protocol.ErrorEvent:
		t.log.Error("turn error", "thread", t.id, "turn", id, "message", m.Message, "info", string(m.CodexErrorInfo))
	case protocol.StreamErrorEvent:
		t.log.Warn("stream error", "thread", t.id, "turn", id, "message", m.Message)
	}
}
