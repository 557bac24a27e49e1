package appserver

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/protocol"
)

type shellCommandParams struct {
	ThreadID  string `json:"threadId"`
	Command   string `json:"command"`
	TimeoutMs *int64 `json:"timeoutMs"`
}

// shellCommand runs the user's command in the thread's directory as a turn of its own, as
// Codex does: turn/started, a commandExecution item (source userShell) with its output,
// turn/completed. The engine has no op for it yet, so the model does not see the output.
func (r *threads) shellCommand(ctx context.Context, c *Conn, p shellCommandParams) (empty, error) {
	lt, err := r.loadedOrErr(p.ThreadID)
	if err != nil {
		return empty{}, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return empty{}, InvalidRequest("command must not be empty")
	}
	if _, running := lt.runningTurn(); running {
		return empty{}, InvalidRequest("thread has an active turn")
	}
	lt.mu.Lock()
	if lt.shellBusy {
		lt.mu.Unlock()
		return empty{}, InvalidRequest("a shell command is already running on this thread")
	}
	lt.shellBusy = true
	lt.mu.Unlock()
	timeout := defaultExecTimeout * 6
	if p.TimeoutMs != nil && *p.TimeoutMs > 0 {
		timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	shell := r.srv.opts.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/bash"
	}
	// It starts once the answer is out, and ends when the thread does.
	context.AfterFunc(ctx, func() {
		defer func() {
			lt.mu.Lock()
			lt.shellBusy = false
			lt.mu.Unlock()
		}()
		lt.runShell(shell, p.Command, timeout)
	})
	return empty{}, nil
}

func (lt *loadedThread) runShell(shell, command string, timeout time.Duration) {
	turnID, callID := newSubmissionID(), uuid.NewString()
	sub := "shell-" + turnID
	now := time.Now().Unix()
	argv := []string{shell, "-lc", command}
	cwd := lt.cfg.Cwd
	parsed := []protocol.ParsedCommand{{Type: "unknown", Cmd: command}}
	emit := func(m protocol.EventMsg) { lt.deliver(protocol.Event{ID: sub, Msg: m}) }
	emit(protocol.TurnStartedEvent{TurnID: turnID, StartedAt: &now})
	emit(protocol.ExecCommandBeginEvent{CallID: callID, TurnID: turnID, Command: argv, Cwd: cwd, ParsedCmd: parsed, Source: protocol.SourceUserShell})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // ends with the command or with the thread
		select {
		case <-lt.th.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	env := process.BuildEnv(lt.cfg.ShellEnvironmentPolicy, os.Environ(), process.EnvOptions{ThreadID: lt.id})
	res, err := process.Run(ctx, process.Spec{Argv: argv, Cwd: cwd, Env: env, OnOutput: func(st process.Stream, b []byte) {
		stream := protocol.StreamStdout
		if st == process.Stderr {
			stream = protocol.StreamStderr
		}
		emit(protocol.ExecCommandOutputDeltaEvent{CallID: callID, Stream: stream, Chunk: b})
	}}, timeout)
	end := protocol.ExecCommandEndEvent{CallID: callID, TurnID: turnID, Command: argv, Cwd: cwd, ParsedCmd: parsed, Source: protocol.SourceUserShell}
	if err != nil {
		end.ExitCode, end.Stderr, end.Status = -1, err.Error(), protocol.ExecFailed
	} else {
		end.ExitCode, end.Duration = res.ExitCode, protocol.Duration(res.Duration)
		end.Stdout, end.Stderr, end.AggregatedOutput = res.Stdout.Text(), res.Stderr.Text(), res.Aggregated.Text()
	}
	emit(end)
	emit(protocol.TurnCompleteEvent{TurnID: turnID})
}
