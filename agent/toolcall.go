package agent

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// ParallelHandler is implemented by handlers whose calls may run at the same time as other
// parallel calls (read-only commands). Other handlers run one at a time.
type ParallelHandler interface {
	SupportsParallel() bool
}

// callRun is one tool call in flight.
type callRun struct {
	call tool.Call
	done chan struct{}
	// returned is set once the handler has returned; events its env emits after that come
	// from something it left running in the background.
	returned atomic.Bool
	result   tool.Result
	err      error
	// held are events the handler emitted from its first completion event on (guarded by
	// turn.mu): they go out once the call's output is in the rollout (turn.release).
	held    []protocol.EventMsg
	holding bool
	// hookResponse is what the command printed, for PostToolUse (hooks_turn.go).
	hookResponse atomic.Pointer[string]
}

// showsCompletion reports whether an event shows a tool call's result to the person; from
// the first such event on, the call's events wait for its output to be written.
func showsCompletion(msg protocol.EventMsg) bool {
	switch msg.(type) {
	case protocol.ExecCommandEndEvent, *protocol.ExecCommandEndEvent,
		protocol.PatchApplyEndEvent, *protocol.PatchApplyEndEvent,
		protocol.McpToolCallEndEvent, *protocol.McpToolCallEndEvent,
		protocol.PlanUpdateEvent, *protocol.PlanUpdateEvent,
		protocol.ViewImageToolCallEvent, *protocol.ViewImageToolCallEvent:
		return true
	}
	return false
}

// outputItem is the history item answering the call.
func (r *callRun) outputItem() protocol.ResponseItem {
	res := r.result
	if r.err != nil {
		res = tool.Result{Output: r.err.Error()}
	}
	success := res.Success
	payload := protocol.FunctionCallOutputPayload{Content: res.Output, ContentItems: res.ContentItems, Success: &success}
	if r.call.Kind == tool.CustomCall {
		return protocol.CustomToolCallOutputItem{CallID: r.call.CallID, Output: payload}
	}
	if r.call.Kind == tool.ToolSearchCall {
		return toolSearchOutput(r.call.CallID, res.Output)
	}
	return protocol.FunctionCallOutputItem{CallID: r.call.CallID, Output: payload}
}

// startCall runs the call's handler in its own goroutine; the turn waits for it before
// sampling again, so the goroutine never outlives the turn.
func (tr *turn) startCall(ctx context.Context, call tool.Call) *callRun {
	run := &callRun{call: call, done: make(chan struct{})}
	h, ok := tr.registry.Lookup(call)
	if !ok {
		run.result = tool.Result{Output: tools.UnsupportedOutput(call)}
		close(run.done)
		return run
	}
	// The tree is recorded before the turn's first tool can change it.
	tr.ensureSnapshot()
	env := tr.env(run)
	tr.watchForHooks(run, env)
	go func() {
		defer close(run.done)
		defer tr.release(run)
		defer func() {
			// A panicking tool must not take the thread down; the model hears about it.
			if p := recover(); p != nil {
				tr.t.log.Error("tool panicked", "tool", call.Name, "panic", p)
				run.result = tool.Result{Output: fmt.Sprintf("tool %s failed: internal error", call.Name)}
				run.err = nil
			}
		}()
		if ph, ok := h.(ParallelHandler); ok && ph.SupportsParallel() {
			tr.toolMu.RLock()
			defer tr.toolMu.RUnlock()
		} else {
			tr.toolMu.Lock()
			defer tr.toolMu.Unlock()
		}
		if ctx.Err() != nil {
			run.result = tool.Result{Output: abortedOutput}
			return
		}
		if tr.preToolHooks(run) {
			return
		}
		run.result, run.err = h.Handle(ctx, env, call)
		if run.err != nil && ctx.Err() != nil {
			// Canceled, not broken: the call was aborted.
			run.result, run.err = tool.Result{Output: abortedOutput}, nil
		}
		if run.err == nil && ctx.Err() == nil {
			tr.postToolHooks(run)
		}
	}()
	return run
}

// emitFromCall sends an event a tool emitted. While the turn runs it goes out like any event
// of the turn. Once the turn has ended, events of a call still in its handler are dropped
// (the call was cut short), but a call whose handler has returned may have left work
// running in the background (a unified-exec session): its output and end events still go
// out, under the turn's submission id, until the thread shuts down.
func (tr *turn) emitFromCall(run *callRun, msg protocol.EventMsg) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch {
	case !tr.ended && !run.returned.Load() && (run.holding || showsCompletion(msg)):
		run.holding = true
		run.held = append(run.held, msg)
	case !tr.ended:
		tr.t.emit(tr.id, msg)
	case run.returned.Load():
		tr.t.emitUnlessClosed(tr.id, msg)
	}
}

// release runs when the handler returns: the output is written ahead to the rollout, then
// the events held since the call's completion go out. A turn that ended meanwhile drops
// them, as it drops any event of a call cut short (its output is "aborted").
func (tr *turn) release(run *callRun) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	run.returned.Store(true)
	held := run.held
	run.held, run.holding = nil, false
	if !tr.writeAhead(run) {
		return
	}
	for _, m := range held {
		tr.t.emit(tr.id, m)
	}
}

// env is what a handler sees of the turn.
func (tr *turn) env(run *callRun) *tool.Env {
	return &tool.Env{
		ThreadID: tr.t.id,
		TurnID:   tr.id,
		Cwd:      tr.s.cwd,
		Approval: tr.s.approval,
		Sandbox:  tr.s.sandbox,
		Mode:     tr.s.mode,
		Emit:     func(m protocol.EventMsg) { tr.emitFromCall(run, m) },
		RequestApproval: func(ctx context.Context, req tool.ApprovalRequest) (protocol.ReviewDecision, error) {
			switch {
			case req.Exec != nil:
				ev := *req.Exec
				if ev.TurnID == "" {
					ev.TurnID = tr.id
				}
				id := ev.ApprovalID
				if id == "" {
					id = ev.CallID
				}
				return tr.t.requestApproval(ctx, tr, id, ev)
			case req.Patch != nil:
				ev := *req.Patch
				if ev.TurnID == "" {
					ev.TurnID = tr.id
				}
				return tr.t.requestApproval(ctx, tr, ev.CallID, ev)
			}
			return protocol.ReviewDecision{}, fmt.Errorf("approval request with neither a command nor a patch")
		},
		RequestUserInput: func(ctx context.Context, ev protocol.RequestUserInputEvent) (protocol.RequestUserInputResponse, error) {
			return tr.t.requestUserInput(ctx, tr, ev)
		},
	}
}
