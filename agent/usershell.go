package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// UserShellRunner runs the commands a person types themselves (run_user_shell_command, the
// `!cmd` of a UI, app-server thread/shellCommand). The built-in shell tool configuration
// implements it.
type UserShellRunner interface {
	// UserShellArgv is the command line the command runs as (`$SHELL -lc command`).
	UserShellArgv(command string) []string
	// RunUserShell runs argv in cwd, unsandboxed, reporting output as it arrives, until it
	// exits, ctx ends (then it returns ctx's error) or the timeout (a default when <= 0)
	// kills it (then the result has TimedOut).
	// onOutput gets each chunk of output as it arrives, stderr saying which stream.
	RunUserShell(ctx context.Context, threadID string, argv []string, cwd string, timeout time.Duration, onOutput func(stderr bool, chunk []byte)) (tool.UserShellResult, error)
}

// userShellAborted is the output Codex reports for a command the person interrupted.
const userShellAborted = "command aborted by user"

// userShell is the runner of the thread: the configured one, else the user's $SHELL with
// the process environment.
func (t *Thread) userShell() UserShellRunner {
	if t.cfg.UserShell != nil {
		return t.cfg.UserShell
	}
	return &shell.Config{}
}

// startUserShell runs the person's command as a turn of its own, as Codex 0.169 does when no
// turn is running: turn_started, exec_command_begin/output_delta/end with source user_shell,
// the command and its output recorded for the model as a <user_shell_command> message, then
// turn_complete. The thread's initial context is not recorded for it: the next regular turn
// does that, after this message, as in Codex. Interrupt kills the command; it is then
// reported (and recorded) as aborted, and the turn ends with turn_aborted.
//
// While a model turn runs, the command runs beside it instead (runAuxiliaryShell).
func (t *Thread) startUserShell(id, command string) {
	if tr := t.turn; tr != nil && t.runAuxiliaryShell(tr, command) {
		return
	}
	tr := t.newTurn(id, t.settings)
	run := tr.newUserShellRun(command)
	t.launch(tr, func() {
		if !run.reportAbort(tr.cancel) || !tr.emit(tr.startedEvent()) {
			return
		}
		run.run(tr.ctx, false, tr.emit, tr.record)
		if tr.ctx.Err() != nil {
			return // the loop reports turn_aborted
		}
		tr.complete(nil, true)
	})
}

// runAuxiliaryShell runs the command beside the running turn tr, as Codex 0.169 does: no
// turn events of its own, its events carry tr's id, and its record joins tr's history at
// the next sampling (after the outputs of the tools then running). It stops when tr is
// aborted or the thread ends, not when tr completes: then its events still go out, and its
// record goes straight into the history. False means tr has already ended (the loop has
// not heard yet) and nothing was started.
func (t *Thread) runAuxiliaryShell(tr *turn, command string) bool {
	ctx, cancel := context.WithCancel(t.ctx)
	run := tr.newUserShellRun(command)
	if !run.reportAbort(cancel) {
		cancel()
		return false
	}
	emit := func(m protocol.EventMsg) bool {
		t.emitUnlessClosed(tr.id, m)
		return true
	}
	record := func(items ...protocol.ResponseItem) bool {
		if !tr.inject(items...) && !t.events.isClosed() {
			t.recordItems(items...)
		}
		return true
	}
	go func() {
		defer cancel()
		// The record is only queued here (it reaches the rollout at the next sampling), so
		// queuing it before the end event goes out changes nothing a reader sees, and a
		// reader that saw the end knows the model will see the command.
		run.run(ctx, true, emit, record)
	}()
	return true
}

// userShellRun is one command the person ran.
type userShellRun struct {
	tr      *turn
	runner  UserShellRunner
	command string
	callID  string
	argv    []string
	cwd     string
	parsed  []protocol.ParsedCommand
	// reported is set by whichever reports the end first: the run, or an abort of its turn.
	// Output arriving after that is dropped.
	reported atomic.Bool
}

func (tr *turn) newUserShellRun(command string) *userShellRun {
	runner := tr.t.userShell()
	argv := runner.UserShellArgv(command)
	return &userShellRun{tr: tr, runner: runner, command: command, callID: uuid.NewString(),
		argv: argv, cwd: tr.s.cwd, parsed: shell.ParsedCommand(argv)}
}

// reportAbort makes an abort of the turn stop the command (cancel) and report it aborted
// right then, so its record comes before the abort's own items (the outputs of cut-short
// tool calls, the <turn_aborted> note), as in Codex, however long the process takes to die.
// False means the turn has already ended.
func (r *userShellRun) reportAbort(cancel context.CancelFunc) bool {
	t, id := r.tr.t, r.tr.id
	return r.tr.whenAborted(func() {
		// The turn's lock is held and it has ended: record and emit on the thread. The claim
		// comes before the cancel, so the run, woken by it, cannot report first.
		won := r.reported.CompareAndSwap(false, true)
		cancel()
		if !won {
			return
		}
		end, item := r.report(tool.UserShellResult{}, nil, true)
		t.recordItems(item)
		t.emit(id, end)
	})
}

// run runs the command and reports it with emit and record, unless an abort of the turn
// reported it first; recordFirst records it before its end event goes out.
func (r *userShellRun) run(ctx context.Context, recordFirst bool, emit func(protocol.EventMsg) bool, record func(...protocol.ResponseItem) bool) {
	emit(protocol.ExecCommandBeginEvent{CallID: r.callID, TurnID: r.tr.id, Command: r.argv, Cwd: r.cwd,
		ParsedCmd: r.parsed, Source: protocol.SourceUserShell})
	type outcome struct {
		res tool.UserShellResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.runner.RunUserShell(ctx, r.tr.t.id, r.argv, r.cwd, r.tr.t.cfg.UserShellTimeout, func(stderr bool, b []byte) {
			if r.reported.Load() {
				return
			}
			stream := protocol.StreamStdout
			if stderr {
				stream = protocol.StreamStderr
			}
			emit(protocol.ExecCommandOutputDeltaEvent{CallID: r.callID, Stream: stream, Chunk: b})
		})
		done <- outcome{res, err}
	}()
	var oc outcome
	aborted := false
	select {
	case oc = <-done:
		aborted = ctx.Err() != nil && errors.Is(oc.err, ctx.Err())
	case <-ctx.Done():
		// Answer at once; the process is being killed.
		aborted = true
		defer func() { <-done }()
	}
	if !r.reported.CompareAndSwap(false, true) {
		return
	}
	end, item := r.report(oc.res, oc.err, aborted)
	if aborted || recordFirst {
		// Codex records an aborted command before reporting its end.
		record(item)
		emit(end)
		return
	}
	emit(end)
	record(item)
}

// report builds the end event and the record of the command.
func (r *userShellRun) report(res tool.UserShellResult, err error, aborted bool) (protocol.ExecCommandEndEvent, protocol.ResponseItem) {
	end := protocol.ExecCommandEndEvent{CallID: r.callID, TurnID: r.tr.id, Command: r.argv, Cwd: r.cwd,
		ParsedCmd: r.parsed, Source: protocol.SourceUserShell}
	var output string
	switch {
	case aborted:
		// What ran before the interrupt is not reported, only that it was aborted.
		end.ExitCode, end.Stderr, end.AggregatedOutput = -1, userShellAborted, userShellAborted
		output = userShellAborted
	case err != nil || res.TimedOut:
		// Codex reports a command it could not run, or that its timeout killed, as an
		// execution error: exit code -1, no duration, the error's text as output.
		output = "execution error: " + userShellError(res, err)
		end.ExitCode, end.Stderr, end.AggregatedOutput = -1, output, output
	default:
		end.ExitCode, end.Duration = res.ExitCode, protocol.Duration(res.Duration)
		end.Stdout, end.Stderr, end.AggregatedOutput = res.Stdout, res.Stderr, res.Aggregated
		output = res.ModelOutput
	}
	end.FormattedOutput = output
	end.Status = protocol.ExecCompleted
	if end.ExitCode != 0 {
		end.Status = protocol.ExecFailed
	}
	return end, textMessage("user", userShellRecord(r.command, end.ExitCode, time.Duration(end.Duration), output))
}

// userShellRecordOpen starts the record of a person's command. Like the environment
// context, the record is a user message the person did not type, so
// prompt.IsContextualUserText recognises it: it is not a user turn.
const userShellRecordOpen = prompt.UserShellCommandOpen

// userShellRecord is what the model is told about the person's command.
func userShellRecord(command string, exitCode int, d time.Duration, output string) string {
	var b strings.Builder
	b.WriteString(userShellRecordOpen)
	b.WriteString("\n<command>\n")
	b.WriteString(command)
	b.WriteString("\n</command>\n<result>\nExit code: ")
	b.WriteString(strconv.Itoa(exitCode))
	fmt.Fprintf(&b, "\nDuration: %.4f seconds\nOutput:\n", d.Seconds())
	b.WriteString(output)
	b.WriteString("\n</result>\n</user_shell_command>")
	return b.String()
}

// userShellError is the text of a command that did not run to its end: the start error, or
// for a timeout the description Codex 0.169 prints (its Rust debug form), so the person and
// the model see the same text as with Codex.
func userShellError(res tool.UserShellResult, err error) string {
	if err != nil {
		return err.Error()
	}
	stream := func(text string) string {
		return "StreamOutput { text: " + rustDebugString(text) + ", truncated_after_lines: None }"
	}
	return "Sandbox(Timeout { output: ExecToolCallOutput { exit_code: " + strconv.Itoa(res.ExitCode) +
		", stdout: " + stream(res.Stdout) + ", stderr: " + stream(res.Stderr) +
		", aggregated_output: " + stream(res.Aggregated) + ", duration: " + rustDebugDuration(res.Duration) +
		", timed_out: true } })"
}

// rustDebugString quotes s as Rust's Debug does for a str: backslash escapes for quote,
// backslash, tab, CR and LF, \u{..} for other control characters.
func rustDebugString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == 0:
			b.WriteString(`\0`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rustDebugDuration prints d as Rust's Debug does for a Duration: the largest unit of s, ms,
// µs and ns that keeps a non-zero integer part, with the exact fraction, trailing zeros
// dropped (1.007983046s, 250ms, 1.5µs).
func rustDebugDuration(d time.Duration) string {
	ns := d.Nanoseconds()
	if ns < 0 {
		ns = 0
	}
	unit, per, digits := "ns", int64(1), 0
	switch {
	case ns >= int64(time.Second):
		unit, per, digits = "s", int64(time.Second), 9
	case ns >= int64(time.Millisecond):
		unit, per, digits = "ms", int64(time.Millisecond), 6
	case ns >= int64(time.Microsecond):
		unit, per, digits = "µs", int64(time.Microsecond), 3
	}
	out := strconv.FormatInt(ns/per, 10)
	if frac := ns % per; frac != 0 {
		f := fmt.Sprintf("%0*d", digits, frac)
		out += "." + strings.TrimRight(f, "0")
	}
	return out + unit
}
