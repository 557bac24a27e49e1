package guard

import (
	"context"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/safety"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/protocol"
)

// Patch is the applypatch.DecideFunc: Codex's patch safety over the thread's policies and
// session cache.
func (g *Guard) Patch(_ context.Context, env *tools.Env, v *patch.Verified) applypatch.Decision {
	d := safety.DecidePatch(g.patchInput(env, v))
	switch d.Kind {
	case safety.Forbidden:
		return applypatch.Decision{Verdict: applypatch.Reject, Reason: d.Reason}
	case safety.Prompt:
		return applypatch.Decision{Verdict: applypatch.AskUser, Reason: d.Reason}
	}
	return applypatch.Decision{Verdict: applypatch.AutoApprove, UserApproved: d.ApprovedForSession}
}

func (g *Guard) patchInput(env *tools.Env, v *patch.Verified) safety.PatchInput {
	in := safety.PatchInput{
		Paths:    v.Paths(),
		Cwd:      env.Cwd,
		Approval: env.Approval,
		Sandbox:  env.Sandbox,
		Cache:    g.cache,
	}
	if env.Sandbox.EffectiveMode() == protocol.SandboxWorkspaceWrite {
		in.WritableRoots = sandbox.WritableRoots(env.Sandbox, env.Cwd, g.opts.Getenv)
	}
	return in
}

// RememberPatchApprovals wraps the apply_patch handler so that a patch approved for the
// session is remembered file by file, as Codex keys it.
func (g *Guard) RememberPatchApprovals(h tools.Handler) tools.Handler {
	return patchMemory{Handler: h, g: g}
}

type patchMemory struct {
	tools.Handler
	g *Guard
}

func (m patchMemory) Handle(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	return m.Handler.Handle(ctx, m.g.RememberingEnv(env), call)
}

// RememberingEnv is env with its approval requests watched: a patch approved for the session
// is remembered file by file. Commands that turn out to be patches use it too.
func (g *Guard) RememberingEnv(env *tools.Env) *tools.Env {
	wrapped := *env
	ask := env.RequestApproval
	wrapped.RequestApproval = func(ctx context.Context, req tools.ApprovalRequest) (protocol.ReviewDecision, error) {
		d, err := ask(ctx, req)
		if err == nil && req.Patch != nil && d.EffectiveKind() == protocol.DecisionApprovedForSession {
			paths := make([]string, 0, len(req.Patch.Changes))
			for p := range req.Patch.Changes {
				paths = append(paths, p)
			}
			g.cache.Approve(safety.PatchKeys(paths, env.Cwd)...)
		}
		return d, err
	}
	return &wrapped
}
