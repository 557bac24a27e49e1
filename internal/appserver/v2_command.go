package appserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// command/exec runs one command outside any thread (the host's one-off commands, under
// the request's sandbox policy, else the configuration's), buffered or, with a
// client-chosen processId, streamed (command/exec/outputDelta) with stdin writes and
// termination. Processes belong to the connection: they are killed when it closes.

const defaultExecTimeout = 10 * time.Second

// CommandExec answers command/exec.
func (a *api) CommandExec(ctx context.Context, c *Conn, p CommandExecParams) (CommandExecResponse, error) {
	args := commandExecParams{
		Command: p.Command, Cwd: p.Cwd, Env: p.Env, TimeoutMs: p.TimeoutMs, DisableTimeout: isTrue(p.DisableTimeout),
		DisableOutputCap: isTrue(p.DisableOutputCap), ProcessID: p.ProcessID, TTY: isTrue(p.Tty),
		StreamStdin: isTrue(p.StreamStdin), StreamStdoutStderr: isTrue(p.StreamStdoutStderr), SandboxPolicy: p.SandboxPolicy,
	}
	if p.OutputBytesCap != nil {
		n := int(*p.OutputBytesCap)
		args.OutputBytesCap = &n
	}
	if p.Size != nil {
		args.Size = &termSize{Rows: p.Size.Rows, Cols: p.Size.Cols}
	}
	res, err := commandExec(ctx, a.s, c, args)
	return CommandExecResponse{ExitCode: int32(res.ExitCode), Stdout: res.Stdout, Stderr: res.Stderr}, err
}

// isTrue reads an optional flag (absent is false).
func isTrue(b *bool) bool { return b != nil && *b }

// CommandExecWrite answers command/exec/write.
func (a *api) CommandExecWrite(ctx context.Context, c *Conn, p CommandExecWriteParams) (CommandExecWriteResponse, error) {
	proc, err := c.execProcs().get(p.ProcessID)
	if err != nil {
		return CommandExecWriteResponse{}, err
	}
	if p.DeltaBase64 != nil {
		b, err := base64.StdEncoding.DecodeString(*p.DeltaBase64)
		if err != nil {
			return CommandExecWriteResponse{}, InvalidParams("invalid deltaBase64: " + err.Error())
		}
		if err := proc.Write(b); err != nil {
			return CommandExecWriteResponse{}, InvalidRequest(err.Error())
		}
	}
	if isTrue(p.CloseStdin) {
		_ = proc.Write(nil)
	}
	return CommandExecWriteResponse{}, nil
}

// CommandExecResize answers command/exec/resize.
func (a *api) CommandExecResize(ctx context.Context, c *Conn, p CommandExecResizeParams) (CommandExecResizeResponse, error) {
	proc, err := c.execProcs().get(p.ProcessID)
	if err != nil {
		return CommandExecResizeResponse{}, err
	}
	size := termSize{Rows: p.Size.Rows, Cols: p.Size.Cols}
	if err := size.check(); err != nil {
		return CommandExecResizeResponse{}, err
	}
	if err := proc.Resize(size.Rows, size.Cols); err != nil {
		if errors.Is(err, app.ErrNotTTY) {
			return CommandExecResizeResponse{}, InvalidRequest("failed to resize PTY: process is not attached to a PTY")
		}
		return CommandExecResizeResponse{}, InvalidRequest("failed to resize PTY: " + err.Error())
	}
	return CommandExecResizeResponse{}, nil
}

// CommandExecTerminate answers command/exec/terminate.
func (a *api) CommandExecTerminate(ctx context.Context, c *Conn, p CommandExecTerminateParams) (CommandExecTerminateResponse, error) {
	proc, err := c.execProcs().get(p.ProcessID)
	if err != nil {
		return CommandExecTerminateResponse{}, err
	}
	proc.Kill()
	return CommandExecTerminateResponse{}, nil
}

type termSize struct {
	Rows uint16 `json:"rows"`
	Cols uint16 `json:"cols"`
}

// check rejects an empty terminal, with Codex's message.
func (z termSize) check() error {
	if z.Rows == 0 || z.Cols == 0 {
		// Codex sends this one without the "Invalid params: " prefix.
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "command/exec size rows and cols must be greater than 0"}
	}
	return nil
}

type commandExecParams struct {
	Command            []string           `json:"command"`
	Cwd                *string            `json:"cwd"`
	Env                map[string]*string `json:"env"`
	TimeoutMs          *int64             `json:"timeoutMs"`
	DisableTimeout     bool               `json:"disableTimeout"`
	OutputBytesCap     *int               `json:"outputBytesCap"`
	DisableOutputCap   bool               `json:"disableOutputCap"`
	ProcessID          *string            `json:"processId"`
	TTY                bool               `json:"tty"`
	Size               *termSize          `json:"size"`
	StreamStdin        bool               `json:"streamStdin"`
	StreamStdoutStderr bool               `json:"streamStdoutStderr"`
	SandboxPolicy      json.RawMessage    `json:"sandboxPolicy"`
	// policy is the v1 execOneOffCommand's sandbox policy (0.63 shape, already decoded).
	policy *protocol.SandboxPolicy
}

type commandExecResponse struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

type execProcsKey struct{}

// execProcs are a connection's running command/exec processes by client id.
type execProcs struct {
	mu    sync.Mutex
	procs map[string]*app.OneOffCommand
}

func (c *Conn) execProcs() *execProcs {
	c.mu.Lock()
	ep, _ := c.values[execProcsKey{}].(*execProcs)
	if ep == nil {
		ep = &execProcs{procs: map[string]*app.OneOffCommand{}}
		c.values[execProcsKey{}] = ep
		c.onClose = append(c.onClose, ep.killAll)
	}
	c.mu.Unlock()
	return ep
}

func (ep *execProcs) get(id string) (*app.OneOffCommand, error) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	p, ok := ep.procs[id]
	if !ok {
		return nil, InvalidRequest("no active command/exec for process id \"" + id + "\"")
	}
	return p, nil
}

func (ep *execProcs) killAll() {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	for _, p := range ep.procs {
		p.Kill()
	}
}

func commandExec(ctx context.Context, s *Server, c *Conn, p commandExecParams) (commandExecResponse, error) {
	if len(p.Command) == 0 {
		return commandExecResponse{}, InvalidRequest("command must not be empty")
	}
	if (p.TTY || p.StreamStdin || p.StreamStdoutStderr) && p.ProcessID == nil {
		return commandExecResponse{}, InvalidRequest("processId is required for tty, streamStdin and streamStdoutStderr")
	}
	if p.Size != nil {
		if !p.TTY {
			return commandExecResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "command/exec size requires tty: true"}
		}
		if err := p.Size.check(); err != nil {
			return commandExecResponse{}, err
		}
	}
	cwd := ""
	if s.opts.Config != nil {
		cwd = s.opts.Config.Cwd
	}
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	req := app.OneOffRequest{Argv: p.Command, Cwd: cwd, Config: s.opts.Config, Env: p.Env, TTY: p.TTY, Stdin: p.StreamStdin}
	policy, err := execPolicy(s, p.SandboxPolicy, p.policy)
	if err != nil {
		return commandExecResponse{}, err
	}
	req.Policy = policy
	if p.Size != nil {
		req.Rows, req.Cols = p.Size.Rows, p.Size.Cols
	}
	if p.DisableOutputCap {
		req.RetainLimit = 1 << 30
	} else if p.OutputBytesCap != nil {
		req.RetainLimit = *p.OutputBytesCap
	}
	if p.StreamStdoutStderr {
		id := *p.ProcessID
		req.OnOutput = func(stderr bool, b []byte) {
			stream := "stdout"
			if stderr {
				stream = "stderr"
			}
			_ = c.Notify(c.Context(), "command/exec/outputDelta", commandExecOutputDelta{
				ProcessID: id, Stream: stream, DeltaBase64: base64.StdEncoding.EncodeToString(b)})
		}
	}
	timeout := defaultExecTimeout
	if p.DisableTimeout {
		timeout = 0
	} else if p.TimeoutMs != nil {
		timeout = time.Duration(*p.TimeoutMs) * time.Millisecond
	}
	pctx, cancel := context.WithCancel(c.Context())
	defer cancel()
	proc, err := c.commands(s).Start(pctx, req)
	if err != nil {
		return commandExecResponse{}, InvalidRequest("failed to start command: " + err.Error())
	}
	if p.ProcessID != nil {
		ep := c.execProcs()
		ep.mu.Lock()
		if _, dup := ep.procs[*p.ProcessID]; dup {
			ep.mu.Unlock()
			proc.Kill()
			return commandExecResponse{}, InvalidRequest("duplicate active command/exec process id \"" + *p.ProcessID + "\"")
		}
		ep.procs[*p.ProcessID] = proc
		ep.mu.Unlock()
		defer func() {
			ep.mu.Lock()
			delete(ep.procs, *p.ProcessID)
			ep.mu.Unlock()
		}()
	}
	res, err := proc.Wait(pctx, timeout)
	if err != nil {
		proc.Kill()
		return commandExecResponse{}, internalError(err.Error())
	}
	out := commandExecResponse{ExitCode: res.ExitCode}
	if !p.StreamStdoutStderr {
		if p.TTY {
			out.Stdout = res.Aggregated
		} else {
			out.Stdout, out.Stderr = res.Stdout, res.Stderr
		}
	}
	return out, nil
}

type commandsKey struct{}

// commands is the connection's one-off command runner: the machine is probed once per
// connection.
func (c *Conn) commands(s *Server) *app.OneOffCommands {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, _ := c.values[commandsKey{}].(*app.OneOffCommands)
	if cs == nil {
		cs = app.NewOneOffCommands(s.opts.AppOptions)
		c.values[commandsKey{}] = cs
	}
	return cs
}

// execPolicy is command/exec's sandbox policy: the request's, else the configuration's, as
// Codex does; nil runs the command as is.
func execPolicy(s *Server, raw json.RawMessage, v1 *protocol.SandboxPolicy) (*protocol.SandboxPolicy, error) {
	policy, err := sandboxFromV2(raw)
	if err != nil {
		return nil, err
	}
	if policy == nil {
		policy = v1
	}
	if policy == nil && s.opts.Config != nil {
		policy = &s.opts.Config.SandboxPolicy
	}
	return policy, nil
}
