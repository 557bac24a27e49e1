// Package shell runs the model's one-shot commands: the `shell` tool (argv), `shell_command`
// (a script for the user's shell) and the built-in `local_shell_call`. Each run is announced
// with exec_command_begin, streams exec_command_output_delta and ends with exec_command_end;
// the model gets Codex's exact output text. Whether and how a command may run is decided by
// a Gate the engine injects (approvals, sandbox).
package shell

import (
	"context"
	"fmt"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// GateRequest is a command the model wants to run.
type GateRequest struct {
	CallID string
	// ToolName is the tool that asked ("shell", "shell_command", "local_shell",
	// "exec_command").
	ToolName string
	Argv     []string
	Cwd      string
	// SandboxPermissions is the model's "use_default", "require_escalated" or
	// "with_additional_permissions" ("" when absent).
	SandboxPermissions string
	Justification      string
	PrefixRule         []string
}

// Decision is the gate's answer.
type Decision struct {
	// Deny, when not empty, is sent to the model instead of running the command.
	Deny string
	// EndTurn ends the turn after a denial (the person chose abort).
	EndTurn bool
	// Spawner builds the command (the sandbox wraps it); process.PlainCommand when nil.
	Spawner process.Spawner
	// Sandboxed says Spawner confines the command, so a failure may be a sandbox denial.
	Sandboxed bool
	// NetworkDisabled adds CODEX_SANDBOX_NETWORK_DISABLED=1 to the command's environment.
	NetworkDisabled bool
	// OnDenied, when set, is consulted after a sandboxed run that looks denied (see
	// process.LikelySandboxDenied); the Decision it returns runs the command again (for
	// instance unsandboxed after the person approved), or its Deny text is returned.
	// Returning a zero Decision with ok=false keeps the original result.
	OnDenied func(ctx context.Context, denied process.Result) (retry Decision, ok bool, err error)
}

// Gate decides whether and how a command runs. It may block on the person (through
// env.RequestApproval) and must return when ctx ends.
type Gate func(ctx context.Context, env *tool.Env, req GateRequest) (Decision, error)

// FullAccessOnlyGate is the gate to use until the sandbox exists: it runs commands only under
// danger-full-access and refuses everything else with a reason the model can act on, so a
// command never runs unconfined under a policy that promised confinement.
func FullAccessOnlyGate(_ context.Context, env *tool.Env, _ GateRequest) (Decision, error) {
	mode := env.Sandbox.EffectiveMode()
	if mode == protocol.SandboxDangerFullAccess {
		return Decision{}, nil
	}
	return Decision{Deny: fmt.Sprintf(
		"execution error: command not run: the %s sandbox is not available in this build, so commands run only under danger-full-access. Tell the user to restart with `--sandbox danger-full-access` (or `--dangerously-bypass-approvals-and-sandbox`) if they accept running commands unconfined.",
		mode)}, nil
}
