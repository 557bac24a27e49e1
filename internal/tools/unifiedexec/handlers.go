package unifiedexec

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

type execArgs struct {
	Cmd                string   `json:"cmd"`
	Workdir            string   `json:"workdir"`
	Shell              string   `json:"shell"`
	TTY                bool     `json:"tty"`
	YieldTimeMs        *int64   `json:"yield_time_ms"`
	MaxOutputTokens    *int     `json:"max_output_tokens"`
	Login              *bool    `json:"login"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

type writeArgs struct {
	SessionID       int    `json:"session_id"`
	Chars           string `json:"chars"`
	YieldTimeMs     *int64 `json:"yield_time_ms"`
	MaxOutputTokens *int   `json:"max_output_tokens"`
}

// ExecCommandHandler is the `exec_command` tool.
type ExecCommandHandler struct{ m *Manager }

// Spec is the exec_command function spec.
func (h *ExecCommandHandler) Spec() tool.Spec {
	return tools.ExecCommandSpec(!h.m.cfg.NoLoginShell)
}

// Handle starts the command and waits up to yield_time_ms for it.
func (h *ExecCommandHandler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args execArgs
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return tool.Result{Output: "failed to parse function arguments: " + err.Error()}, nil
	}
	if strings.TrimSpace(args.Cmd) == "" {
		return tool.Result{Output: "exec_command failed: missing command line"}, nil
	}
	return h.m.execCommand(ctx, env, call, args)
}

// WriteStdinHandler is the `write_stdin` tool.
type WriteStdinHandler struct{ m *Manager }

// Spec is the write_stdin function spec.
func (h *WriteStdinHandler) Spec() tool.Spec { return tools.WriteStdinSpec() }

// Handle writes chars (if any) to a session and collects its output.
func (h *WriteStdinHandler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args writeArgs
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return tool.Result{Output: "failed to parse function arguments: " + err.Error()}, nil
	}
	return h.m.writeStdin(ctx, env, call, args)
}

func clampYield(ms *int64, def time.Duration) time.Duration {
	d := def
	if ms != nil {
		d = time.Duration(*ms) * time.Millisecond
	}
	return min(max(d, MinYield), MaxYield)
}

func pollYield(ms *int64) time.Duration {
	d := DefaultWriteYield
	if ms != nil {
		d = time.Duration(*ms) * time.Millisecond
	}
	return min(max(d, MinEmptyPollYield), MaxEmptyPollYield)
}

// maxTokens is the model's max_output_tokens (10000 by default), never more than the
// model's own truncation budget: Codex caps larger requests the same way.
func (m *Manager) maxTokens(n *int) int {
	tokens := DefaultOutputTokens
	if n != nil && *n > 0 {
		tokens = *n
	}
	return min(tokens, process.ApproxTokensFromBytes(m.cfg.TruncationPolicy().ByteBudget()))
}

func (m *Manager) execCommand(ctx context.Context, env *tool.Env, call tool.Call, args execArgs) (tool.Result, error) {
	cfg := m.cfg
	program := args.Shell
	if program == "" {
		program = cfg.Shell()
	}
	login := args.Login == nil || *args.Login
	argv := cfg.ShellArgv(program, args.Cmd, login)
	cwd := shell.ResolveWorkdir(env.Cwd, args.Workdir)
	if cfg.Intercept != nil {
		start := time.Now()
		res, ok, err := cfg.Intercept(ctx, env, call.CallID, cwd, argv)
		if err != nil {
			return res, err
		}
		if ok {
			// Codex puts apply_patch's own text after exec_command's header.
			res.Output = fmt.Sprintf("Wall time: %.4f seconds\nOutput:\n%s", time.Since(start).Seconds(), res.Output)
			return res, nil
		}
	}

	gate := cfg.Gate
	if gate == nil {
		gate = shell.FullAccessOnlyGate
	}
	decision, err := gate(ctx, env, shell.GateRequest{
		CallID: call.CallID, ToolName: tools.NameExecCommand, Argv: argv, Cwd: cwd,
		SandboxPermissions: args.SandboxPermissions, Justification: args.Justification, PrefixRule: args.PrefixRule,
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{Output: "aborted by user"}, ctx.Err()
		}
		return tool.Result{}, err
	}
	if decision.Deny != "" {
		return tool.Result{Output: decision.Deny, EndTurn: decision.EndTurn}, nil
	}
	res, denied, err := m.run(ctx, env, call, args, argv, cwd, decision)
	if err != nil || denied == nil {
		return res, err
	}
	// A sandboxed command that failed the way sandbox refusals do: the gate may offer to run
	// it again (unsandboxed, after the person agreed).
	retry, ok, err := decision.OnDenied(ctx, *denied)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return tool.Result{Output: "aborted by user"}, ctx.Err()
		}
		return tool.Result{}, err
	case !ok:
		return res, nil
	case retry.Deny != "":
		return tool.Result{Output: retry.Deny, EndTurn: retry.EndTurn}, nil
	}
	retry.OnDenied = nil
	res, _, err = m.run(ctx, env, call, args, argv, cwd, retry)
	return res, err
}

// run starts the command and answers the first call. When the command already finished and
// looks denied by the sandbox it also returns its result, for the gate's OnDenied.
func (m *Manager) run(ctx context.Context, env *tool.Env, call tool.Call, args execArgs, argv []string, cwd string, decision shell.Decision) (tool.Result, *process.Result, error) {
	cfg := m.cfg
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return tool.Result{Output: "exec_command failed: the thread has ended"}, nil, nil
	}

	emit := env.Emit
	if emit == nil {
		emit = func(protocol.EventMsg) {}
	}
	id := m.allocateID()
	s := &session{
		id: id, tty: args.TTY, argv: argv, cmd: args.Cmd, cwd: cwd, callID: call.CallID, turnID: env.TurnID, emit: emit,
		notify: make(chan struct{}, 1), ended: make(chan struct{}),
	}
	emit(protocol.ExecCommandBeginEvent{
		CallID: call.CallID, ProcessID: strconv.Itoa(id), TurnID: env.TurnID, Command: argv, Cwd: cwd,
		ParsedCmd: shell.ParsedCommand(argv), Source: protocol.SourceUnifiedExecStartup,
	})
	start := time.Now()
	p, err := process.Start(ctx, process.Spec{
		Argv: argv, Cwd: cwd, TTY: args.TTY, Spawner: decision.Spawner,
		Env: cfg.CommandEnv(env, decision.NetworkDisabled, commandEnv),
		OnOutput: func(st process.Stream, chunk []byte) {
			s.push(chunk)
			stream := protocol.StreamStdout
			if st == process.Stderr {
				stream = protocol.StreamStderr
			}
			emit(protocol.ExecCommandOutputDeltaEvent{CallID: call.CallID, Stream: stream, Chunk: chunk})
		},
	})
	if err != nil {
		m.release(id)
		msg := "Failed to create unified exec process: " + err.Error()
		emit(protocol.ExecCommandEndEvent{
			CallID: call.CallID, ProcessID: strconv.Itoa(id), TurnID: env.TurnID, Command: argv, Cwd: cwd,
			ParsedCmd: shell.ParsedCommand(argv), Source: protocol.SourceUnifiedExecStartup,
			Stderr: msg, AggregatedOutput: msg, ExitCode: -1, FormattedOutput: msg,
		})
		return tool.Result{Output: fmt.Sprintf("exec_command failed: CreateProcess { message: %q }", msg)}, nil, nil
	}
	s.proc = p
	go m.watch(s)

	// Keep a live process before waiting, so an interrupt during the wait leaves it running
	// in the background rather than orphaned.
	if !p.HasExited() && !m.keep(s) {
		p.Kill()
		<-s.ended
		m.release(id)
		return tool.Result{Output: "exec_command failed: the thread has ended"}, nil, nil
	}
	collected, err := collect(ctx, s, start.Add(clampYield(args.YieldTimeMs, DefaultExecYield)))
	if err != nil {
		return tool.Result{Output: "aborted by user"}, nil, err
	}
	res := m.respond(s, collected, time.Since(start), m.maxTokens(args.MaxOutputTokens))
	if decision.Sandboxed && decision.OnDenied != nil && p.HasExited() {
		agg, out, errOut := p.Output()
		r := process.Result{ExitCode: p.ExitCode(), Aggregated: agg, Stdout: out, Stderr: errOut, Duration: p.Duration()}
		if process.LikelySandboxDenied(r) {
			return res, &r, nil
		}
	}
	return res, nil, nil
}

func (m *Manager) writeStdin(ctx context.Context, env *tool.Env, call tool.Call, args writeArgs) (tool.Result, error) {
	s, ok := m.lookup(args.SessionID)
	if !ok {
		return tool.Result{Output: fmt.Sprintf("write_stdin failed: Unknown process id %d", args.SessionID)}, nil
	}
	if args.Chars != "" && !s.tty {
		return tool.Result{Output: "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"}, nil
	}
	// As in Codex 0.169: the interaction is reported once the output it caused is collected,
	// under the session's command (its exec_command call), and before the process's end when
	// it exits meanwhile (watch waits for writeMu).
	s.writeMu.Lock()
	interacted := false
	interaction := func() {
		if !interacted {
			interacted = true
			if env.Emit != nil && args.Chars != "" { // a poll writes nothing and reports nothing
				env.Emit(protocol.TerminalInteractionEvent{CallID: s.callID, ProcessID: strconv.Itoa(s.id), Stdin: args.Chars})
			}
			s.writeMu.Unlock()
		}
	}
	defer interaction()
	yield := pollYield(args.YieldTimeMs)
	if args.Chars != "" {
		if err := s.proc.Write([]byte(args.Chars)); err != nil && !s.proc.HasExited() {
			return tool.Result{Output: "write_stdin failed: " + err.Error()}, nil
		}
		yield = clampYield(args.YieldTimeMs, DefaultWriteYield)
	}
	start := time.Now()
	collected, err := collect(ctx, s, start.Add(yield))
	interaction()
	if err != nil {
		return tool.Result{Output: "aborted by user"}, err
	}
	return m.respond(s, collected, time.Since(start), m.maxTokens(args.MaxOutputTokens)), nil
}

// collect gathers a session's output until the deadline, or shortly after the process
// exits. It returns ctx's error when the turn is interrupted (the process keeps running).
func collect(ctx context.Context, s *session, deadline time.Time) ([]byte, error) {
	var out []byte
	exited := s.proc.Exited()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		out = append(out, s.take()...)
		select {
		case <-s.proc.Done():
			return append(out, s.take()...), nil
		default:
		}
		select {
		case <-s.notify:
		case <-s.proc.Done():
		case <-exited:
			// Output may still be in flight: read a little longer, never past the deadline.
			exited = nil
			if grace := time.Until(deadline); grace > exitGrace {
				timer.Reset(exitGrace)
			}
		case <-timer.C:
			return append(out, s.take()...), nil
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

// respond formats the answer and retires a process that has finished.
func (m *Manager) respond(s *session, collected []byte, wall time.Duration, tokens int) tool.Result {
	text := process.LossyString(collected)
	var b strings.Builder
	b.WriteString("Chunk ID: ")
	b.WriteString(m.chunkID())
	fmt.Fprintf(&b, "\nWall time: %.4f seconds\n", wall.Seconds())
	success := true
	if s.proc.HasExited() {
		// Wait for the end event so it reaches the client before the tool result.
		<-s.ended
		m.release(s.id)
		code := s.proc.ExitCode()
		success = code == 0
		fmt.Fprintf(&b, "Process exited with code %d\n", code)
	} else {
		fmt.Fprintf(&b, "Process running with session ID %d\n", s.id)
	}
	fmt.Fprintf(&b, "Original token count: %d\nOutput:\n", process.ApproxTokenCount(text))
	b.WriteString(process.FormattedTruncate(text, process.Tokens(tokens)))
	return tool.Result{Output: b.String(), Success: success}
}

// keep stores a running process, ending the pruned one if the store was full and warning
// the model as the store nears its cap. It is false once the manager is closed.
func (m *Manager) keep(s *session) bool {
	count, pruned, ok := m.store(s)
	if !ok {
		return false
	}
	if pruned != nil {
		pruned.proc.Kill()
	}
	if count >= m.opts.WarnProcesses {
		s.emit(protocol.WarningEvent{Message: fmt.Sprintf(
			"The maximum number of unified exec processes you can keep open is %d and you currently have %d processes open. Reuse older processes or close them to prevent automatic pruning of old processes",
			m.opts.WarnProcesses, count)})
	}
	return true
}
