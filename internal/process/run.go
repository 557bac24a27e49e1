package process

import (
	"context"
	"strconv"
	"time"
)

// TimeoutExitCode is the exit code reported for a command killed by its timeout.
const TimeoutExitCode = 124

// Result is a finished command.
type Result struct {
	ExitCode   int
	Aggregated Output
	Stdout     Output
	Stderr     Output
	Duration   time.Duration
	TimedOut   bool
}

// Content is the aggregated output as the model sees it before truncation; a timed-out
// command's output is prefixed with how long it ran.
func (r Result) Content() string {
	text := r.Aggregated.Text()
	if r.TimedOut {
		return "command timed out after " + strconv.FormatInt(r.Duration.Milliseconds(), 10) + " milliseconds\n" + text
	}
	return text
}

// Run starts the command and waits for it. A timeout (when > 0) kills the process group and
// yields exit code 124 with TimedOut set. When ctx ends first the group is killed at once
// and Run returns what was captured together with ctx's error.
func Run(ctx context.Context, spec Spec, timeout time.Duration) (Result, error) {
	p, err := Start(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	return Wait(ctx, p, timeout)
}

// Wait waits for a started process like Run does: the timeout (when > 0) and ctx kill the
// process group.
func Wait(ctx context.Context, p *Process, timeout time.Duration) (Result, error) {
	var timeoutC <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	timedOut := false
	var ctxErr error
	select {
	case <-p.Exited():
	case <-timeoutC:
		timedOut = true
		p.Kill()
	case <-ctx.Done():
		ctxErr = ctx.Err()
		p.Kill()
	}
	<-p.Done()
	agg, out, errOut := p.Output()
	r := Result{
		ExitCode:   p.ExitCode(),
		Aggregated: agg,
		Stdout:     out,
		Stderr:     errOut,
		Duration:   p.Duration(),
		TimedOut:   timedOut,
	}
	if timedOut {
		r.ExitCode = TimeoutExitCode
	}
	return r, ctxErr
}
