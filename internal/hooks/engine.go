package hooks

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// Engine runs the hooks Load kept.
type Engine struct {
	handlers []*Handler
	environ  func() []string
	confine  func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error)
}

// Handlers are the hooks that will run, in display order.
func (e *Engine) Handlers() []*Handler { return e.handlers }

// Outcome is what the hooks of one event decided together.
type Outcome struct {
	// Blocked: a hook denied the tool call, blocked the prompt or (Stop) asked the turn to
	// go on; Reason is the first such hook's reason (display order), BlockedBy its run id.
	Blocked   bool
	Reason    string
	BlockedBy string
	// Context are the texts the hooks added, in display order.
	Context []string
}

// Run runs the hooks matching in concurrently, reports each through emit (hook_started,
// then hook_completed) and returns when all have ended.
func (e *Engine) Run(ctx context.Context, in Input, emit func(protocol.EventMsg)) Outcome {
	var matching []*Handler
	subject, hasSubject := in.Subject()
	for _, h := range e.handlers {
		if h.Event == in.Event && (!hasSubject || h.matches(subject)) {
			matching = append(matching, h)
		}
	}
	if len(matching) == 0 {
		return Outcome{}
	}
	stdin, err := in.payload()
	if err != nil { // only raw tool input could fail to encode
		stdin = []byte("{}")
	}
	var turnID *string
	if in.TurnID != "" {
		turnID = &in.TurnID
	}
	var environ []string
	if e.environ != nil {
		environ = e.environ()
	} else {
		environ = os.Environ()
	}
	verdicts := make([]verdict, len(matching))
	ids := make([]string, len(matching))
	runs := make([]protocol.HookRunSummary, len(matching))
	// As Codex: every hook is announced, then they run together.
	started := time.Now()
	for i, h := range matching {
		ids[i] = h.Event.kebab() + ":" + strconv.FormatInt(h.DisplayOrder, 10) + ":" + h.SourcePath
		runs[i] = protocol.HookRunSummary{ID: ids[i], EventName: h.Event.snake(), HandlerType: "command", ExecutionMode: "sync",
			Scope: scopeOf(h.Event), SourcePath: h.SourcePath, Source: h.Source, DisplayOrder: h.DisplayOrder,
			Status: protocol.HookRunning, StatusMessage: h.StatusMessage, StartedAt: started.Unix(), Entries: []protocol.HookOutputEntry{}}
		emit(protocol.HookStartedEvent{TurnID: turnID, Run: runs[i]})
	}
	var wg sync.WaitGroup
	for i, h := range matching {
		run := runs[i]
		wg.Add(1)
		go func() { // joined below, before Run returns
			defer wg.Done()
			res := runCommand(ctx, h.Command, in.Cwd, stdin, h.Timeout, environ, e.confine)
			v := judge(h.Event, res, formatTimeout(h.Timeout))
			if ctx.Err() != nil {
				v = verdict{status: protocol.HookStopped, entries: []protocol.HookOutputEntry{{Kind: "stop", Text: "hook stopped: the turn was interrupted"}}}
			}
			verdicts[i] = v
			done := time.Now()
			completed, dur := done.Unix(), done.Sub(started).Milliseconds()
			run.Status, run.CompletedAt, run.DurationMs = v.status, &completed, &dur
			if len(v.entries) > 0 {
				run.Entries = v.entries
			}
			emit(protocol.HookCompletedEvent{TurnID: turnID, Run: run})
		}()
	}
	wg.Wait()
	var out Outcome
	for i, v := range verdicts {
		if v.status == protocol.HookBlocked && !out.Blocked {
			out.Blocked, out.Reason, out.BlockedBy = true, v.block, ids[i]
		}
		out.Context = append(out.Context, v.context...)
	}
	return out
}

func scopeOf(ev Event) string {
	if ev == SessionStart {
		return "thread"
	}
	return "turn"
}

// formatTimeout prints a timeout as Codex does ("1s", "600s").
func formatTimeout(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}
