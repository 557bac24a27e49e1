// Package guard stands between a tool call and the machine: it asks internal/safety for the
// approval decision, puts prompts to the person through the engine, runs commands inside the
// sandbox the policy names, and offers the unsandboxed retry when a sandboxed command looks
// denied. It is the one place where approvals, execpolicy and the sandbox meet.
package guard

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"

	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/safety"
	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Texts the model receives when the person says no.
const (
	rejectedByUser = "exec command rejected by user"
)

// Options configure a Guard; one Guard serves one thread.
type Options struct {
	// CodexHome is where approved execpolicy amendments are appended (rules/default.rules).
	CodexHome string
	// Policy is the loaded execpolicy; nil means no rules.
	Policy *execpolicy.Policy
	// Sandbox tunes the sandbox (mechanisms off, helper binary).
	Sandbox sandbox.Options
	// Getenv resolves $TMPDIR for writable roots; nil means no environment.
	Getenv func(string) string
	// BeforeWrite, when set, is told before a command or a patch runs under a sandbox that
	// lets it write (workspace-write), with the policy and the folder it is relative to:
	// the host records there what the thread may write (internal/writejournal). An error
	// stops the command: its writes could not be told apart later.
	BeforeWrite func(policy protocol.SandboxPolicy, policyCwd string) error
}

// Guard decides and confines the commands and patches of one thread.
type Guard struct {
	opts  Options
	cache *safety.ApprovalCache

	mu     sync.Mutex
	policy *execpolicy.Policy

	probeOnce sync.Once
	probe     sandbox.ProbeResult
	announced bool
}

// New returns a Guard with an empty session cache.
func New(opts Options) *Guard {
	p := opts.Policy
	if p == nil {
		p = execpolicy.Empty()
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	return &Guard{opts: opts, cache: safety.NewApprovalCache(), policy: p}
}

// Cache is the thread's "approved for this session" memory.
func (g *Guard) Cache() *safety.ApprovalCache { return g.cache }

func (g *Guard) currentPolicy() *execpolicy.Policy {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.policy
}

// Exec is the shell.Gate of every command tool.
func (g *Guard) Exec(ctx context.Context, env *tool.Env, req shell.GateRequest) (shell.Decision, error) {
	in := safety.ExecInput{
		Command:            req.Argv,
		Cwd:                req.Cwd,
		Approval:           env.Approval,
		Sandbox:            env.Sandbox,
		SandboxPermissions: safety.SandboxPermissions(req.SandboxPermissions),
		Justification:      req.Justification,
		Policy:             g.currentPolicy(),
		Cache:              g.cache,
		PrefixRule:         req.PrefixRule,
	}
	d := safety.DecideExec(in)
	approvedByPerson := false
	switch d.Kind {
	case safety.Forbidden:
		if d.Reason == safety.EscalationRejection(env.Approval, in.SandboxPermissions) {
			return shell.Decision{Deny: d.Reason}, nil // sent as is, like Codex
		}
		return shell.Decision{Deny: rejectedOutput(req.ToolName, d.Reason)}, nil
	case safety.Prompt:
		reason := d.Reason
		if reason == "" && req.Justification != "" {
			reason = req.Justification
		}
		deny, err := g.askExec(ctx, env, req, in, reason, d.ProposedAmendment)
		if err != nil || deny != nil {
			if deny == nil {
				deny = &shell.Decision{}
			}
			return *deny, err
		}
		approvedByPerson = true
	}
	sandboxed := d.Sandboxed && !env.Sandbox.HasFullDiskWriteAccess()
	// Under untrusted, Codex 0.169 runs a command the person approved outside the sandbox
	// from the start (observed: no denied first attempt, no retry).
	if approvedByPerson && env.Approval.Effective() == protocol.ApprovalModeUntrusted {
		sandboxed = false
	}
	if !sandboxed {
		return shell.Decision{}, nil
	}
	dec, err := g.sandboxed(env)
	if err != nil {
		return shell.Decision{Deny: fmt.Sprintf("execution error: %v", err)}, nil
	}
	if safety.ShouldEscalateOnFailure(env.Approval) {
		dec.OnDenied = func(ctx context.Context, _ process.Result) (shell.Decision, bool, error) {
			if safety.RetryNeedsPrompt(in, approvedByPerson) {
				deny, err := g.askExec(ctx, env, req, in, safety.RetryWithoutSandboxQuery, nil)
				if err != nil {
					return shell.Decision{}, false, err
				}
				if deny != nil {
					return *deny, true, nil
				}
			}
			return shell.Decision{}, true, nil
		}
	}
	return dec, nil
}

// askExec puts a command to the person. It returns nil when they approved, or the decision
// that refuses the command.
func (g *Guard) askExec(ctx context.Context, env *tool.Env, req shell.GateRequest, in safety.ExecInput, reason string, amendment []string) (*shell.Decision, error) {
	ev := &protocol.ExecApprovalRequestEvent{
		CallID:                      req.CallID,
		TurnID:                      env.TurnID,
		Command:                     req.Argv,
		Cwd:                         req.Cwd,
		ProposedExecpolicyAmendment: amendment,
		ParsedCmd:                   shell.ParsedCommand(req.Argv),
	}
	if reason != "" {
		ev.Reason = &reason
	}
	decision, err := env.RequestApproval(ctx, tool.ApprovalRequest{Exec: ev})
	if err != nil {
		return nil, err
	}
	switch decision.EffectiveKind() {
	case protocol.DecisionApproved:
		return nil, nil
	case protocol.DecisionApprovedForSession:
		g.cache.Approve(in.CacheKey())
		return nil, nil
	case protocol.DecisionApprovedExecpolicyAmendment:
		prefix := decision.ExecpolicyAmendment
		if len(prefix) == 0 {
			prefix = amendment
		}
		if err := g.amend(prefix); err != nil {
			env.Emit(protocol.WarningEvent{Message: fmt.Sprintf("could not save the approved rule: %v", err)})
		}
		return nil, nil
	case protocol.DecisionAbort:
		return &shell.Decision{Deny: rejectedOutput(req.ToolName, safety.ReasonRejectedByUser), EndTurn: true}, nil
	default: // denied, timed_out
		return &shell.Decision{Deny: rejectedOutput(req.ToolName, safety.ReasonRejectedByUser)}, nil
	}
}

// rejectedOutput is what the model is told when a command does not run: exec_command wraps
// the reason the way Codex 0.169 does; the one-shot shell tools use the plain sentence.
func rejectedOutput(tool, reason string) string {
	if tool == "exec_command" {
		return safety.ExecRejectedOutput(tool, reason)
	}
	if reason == safety.ReasonRejectedByUser {
		return rejectedByUser
	}
	return reason
}

// amend appends an allow rule to default.rules and to the policy in force.
func (g *Guard) amend(prefix []string) error {
	if len(prefix) == 0 {
		return errors.New("empty command prefix")
	}
	var saveErr error
	if g.opts.CodexHome != "" {
		saveErr = execpolicy.AppendAllowRule(g.opts.CodexHome, prefix)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// Policies are shared read-only; amend a copy and swap it in.
	next := g.policy.Clone()
	if err := next.AddPrefixRule(prefix, execpolicy.Allow); err != nil {
		return errors.Join(saveErr, err)
	}
	g.policy = next
	return saveErr
}

// beforeWrite tells Options.BeforeWrite of a run that may write.
func (g *Guard) beforeWrite(policy protocol.SandboxPolicy, policyCwd string) error {
	if g.opts.BeforeWrite == nil || policy.EffectiveMode() != protocol.SandboxWorkspaceWrite {
		return nil
	}
	if err := g.opts.BeforeWrite(policy, policyCwd); err != nil {
		return fmt.Errorf("cannot record what this command may write: %w", err)
	}
	return nil
}

// sandboxed is the decision that runs a command under the thread's sandbox policy, or an
// error that says why no sandbox can be applied: never a silent unconfined run.
func (g *Guard) sandboxed(env *tool.Env) (shell.Decision, error) {
	g.probeOnce.Do(func() { g.probe = sandbox.Probe(context.Background(), g.opts.Sandbox) })
	if g.probe.Err != nil {
		return shell.Decision{}, g.probe.ErrFor(env.Sandbox)
	}
	g.mu.Lock()
	first := !g.announced
	g.announced = true
	g.mu.Unlock()
	if first && env.Emit != nil {
		env.Emit(protocol.BackgroundEventEvent{Message: g.probe.Message()})
	}
	policy, policyCwd := env.Sandbox, env.Cwd
	probe := g.probe
	spawn := func(ctx context.Context, argv []string, cwd string, environ []string) (*exec.Cmd, error) {
		if err := g.beforeWrite(policy, policyCwd); err != nil {
			return nil, err
		}
		return sandbox.Command(ctx, sandbox.Request{
			Policy: policy, PolicyCwd: policyCwd, Cwd: cwd, Argv: argv, Env: environ,
			Probe: &probe, Options: g.opts.Sandbox,
		})
	}
	return shell.Decision{
		Spawner:         spawn,
		Sandboxed:       true,
		NetworkDisabled: !policy.HasFullNetworkAccess(),
	}, nil
}
