package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/tool"
)

// shellArgs are the `shell` tool's arguments.
type shellArgs struct {
	Command            []string `json:"command"`
	Workdir            string   `json:"workdir"`
	TimeoutMs          *int64   `json:"timeout_ms"`
	Timeout            *int64   `json:"timeout"` // older alias of timeout_ms
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

// shellCommandArgs are the `shell_command` tool's arguments.
type shellCommandArgs struct {
	Command            string   `json:"command"`
	Workdir            string   `json:"workdir"`
	TimeoutMs          *int64   `json:"timeout_ms"`
	Timeout            *int64   `json:"timeout"`
	Login              *bool    `json:"login"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

// localShellAction is the `action` of a local_shell_call.
type localShellAction struct {
	Type             string            `json:"type"`
	Command          []string          `json:"command"`
	TimeoutMs        *int64            `json:"timeout_ms"`
	WorkingDirectory string            `json:"working_directory"`
	Env              map[string]string `json:"env"`
	User             string            `json:"user"`
}

// parseError is what the model is told when its arguments do not decode.
func parseError(err error) tool.Result {
	return tool.Result{Output: "failed to parse function arguments: " + err.Error()}
}

func firstTimeout(a, b *int64) *int64 {
	if a != nil {
		return a
	}
	return b
}

// ShellHandler is the `shell` tool.
type ShellHandler struct{ cfg *Config }

// NewShell returns the `shell` handler.
func NewShell(cfg *Config) *ShellHandler { return &ShellHandler{cfg: cfg} }

// Spec is the `shell` function spec.
func (h *ShellHandler) Spec() tool.Spec { return tools.ShellSpec() }

// Handle runs the argv as given.
func (h *ShellHandler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args shellArgs
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return parseError(err), nil
	}
	if len(args.Command) == 0 {
		return parseError(errors.New("missing field `command`")), nil
	}
	return h.cfg.execute(ctx, env, execRequest{
		call: call, toolName: tools.NameShell, argv: args.Command,
		cwd:                ResolveWorkdir(env.Cwd, args.Workdir),
		timeout:            h.cfg.timeout(firstTimeout(args.TimeoutMs, args.Timeout)),
		sandboxPermissions: args.SandboxPermissions, justification: args.Justification, prefixRule: args.PrefixRule,
		format: StructuredOutput,
	})
}

// ShellCommandHandler is the `shell_command` tool.
type ShellCommandHandler struct{ cfg *Config }

// NewShellCommand returns the `shell_command` handler.
func NewShellCommand(cfg *Config) *ShellCommandHandler { return &ShellCommandHandler{cfg: cfg} }

// Spec is the `shell_command` function spec.
func (h *ShellCommandHandler) Spec() tool.Spec { return tools.ShellCommandSpec(!h.cfg.NoLoginShell) }

// Handle runs the script in the user's shell, as a login shell unless told otherwise.
func (h *ShellCommandHandler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var args shellCommandArgs
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return parseError(err), nil
	}
	login := args.Login == nil || *args.Login
	if login && args.Login != nil && h.cfg.NoLoginShell {
		return tool.Result{Output: "login shell is disabled by config; omit `login` or set it to false."}, nil
	}
	return h.cfg.execute(ctx, env, execRequest{
		call: call, toolName: tools.NameShellCommand,
		argv:               h.cfg.ShellArgv(h.cfg.Shell(), args.Command, login),
		cwd:                ResolveWorkdir(env.Cwd, args.Workdir),
		timeout:            h.cfg.timeout(firstTimeout(args.TimeoutMs, args.Timeout)),
		sandboxPermissions: args.SandboxPermissions, justification: args.Justification, prefixRule: args.PrefixRule,
		format: FreeformOutput,
	})
}

// LocalShellHandler answers `local_shell_call` items. The engine passes the call's `action`
// object as Call.Arguments (the whole item, with its `action` field, is accepted too).
type LocalShellHandler struct{ cfg *Config }

// NewLocalShell returns the local_shell handler.
func NewLocalShell(cfg *Config) *LocalShellHandler { return &LocalShellHandler{cfg: cfg} }

// Spec is the built-in `{"type":"local_shell"}` tool.
func (h *LocalShellHandler) Spec() tool.Spec { return tool.Spec(`{"type":"local_shell"}`) }

// Handle runs the action like `shell`, with the action's extra environment.
func (h *LocalShellHandler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var wrapper struct {
		Action *localShellAction `json:"action"`
	}
	var action localShellAction
	if err := json.Unmarshal([]byte(call.Arguments), &wrapper); err != nil {
		return parseError(err), nil
	}
	if wrapper.Action != nil {
		action = *wrapper.Action
	} else if err := json.Unmarshal([]byte(call.Arguments), &action); err != nil {
		return parseError(err), nil
	}
	if action.Type != "" && action.Type != "exec" {
		return tool.Result{Output: fmt.Sprintf("unsupported local_shell action type: %s", action.Type)}, nil
	}
	if len(action.Command) == 0 {
		return parseError(errors.New("missing field `command`")), nil
	}
	return h.cfg.execute(ctx, env, execRequest{
		call: call, toolName: tools.NameLocalShell, argv: action.Command,
		cwd:      ResolveWorkdir(env.Cwd, action.WorkingDirectory),
		timeout:  h.cfg.timeout(action.TimeoutMs),
		extraEnv: action.Env,
		format:   StructuredOutput,
	})
}
