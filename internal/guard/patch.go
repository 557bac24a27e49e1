package guard

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/safety"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Patch is the applypatch.DecideFunc: Codex's patch safety over the thread's policies and
// session cache, and, under a sandboxed policy, the confinement that writes the patch inside
// the sandbox after checking where each of its paths really leads.
func (g *Guard) Patch(_ context.Context, env *tool.Env, v *patch.Verified) applypatch.Decision {
	d := safety.DecidePatch(g.patchInput(env, v))
	var out applypatch.Decision
	switch d.Kind {
	case safety.Forbidden:
		return applypatch.Decision{Verdict: applypatch.Reject, Reason: d.Reason}
	case safety.Prompt:
		out = applypatch.Decision{Verdict: applypatch.AskUser, Reason: d.Reason}
	default:
		out = applypatch.Decision{Verdict: applypatch.AutoApprove, UserApproved: d.ApprovedForSession}
	}
	if env.Sandbox.HasFullDiskWriteAccess() {
		return out
	}
	out.Confinement = g.patchConfinement(env, v)
	if out.Verdict == applypatch.AskUser {
		// The person sees the paths as the patch spells them; what a symlink hides is told,
		// so that their approval covers it.
		var hidden []string
		if out.Reason != "" {
			hidden = append(hidden, out.Reason)
		}
		for _, b := range out.Confinement.Blocked {
			if b.Hidden {
				hidden = append(hidden, b.Message)
			}
		}
		out.Reason = strings.Join(hidden, "; ")
	}
	return out
}

func (g *Guard) patchInput(env *tool.Env, v *patch.Verified) safety.PatchInput {
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

// patchConfinement checks every write of the patch where it leads and runs the patch
// through the binary's own apply_patch inside the sandbox of the turn's policy.
func (g *Guard) patchConfinement(env *tool.Env, v *patch.Verified) *applypatch.Confinement {
	c := &applypatch.Confinement{
		MayAsk:      safety.PatchRetryMayAsk(env.Approval),
		RetryReason: safety.RetryWithoutSandboxQuery,
	}
	for _, b := range safety.BlockedPatchWrites(v.Writes(), env.Sandbox, env.Cwd, g.opts.Getenv) {
		c.Blocked = append(c.Blocked, applypatch.BlockedWrite{Message: b.Error(), Hidden: b.Hidden})
	}
	policy, policyCwd := env.Sandbox, env.Cwd
	c.Apply = func(ctx context.Context, dir, text string) (applypatch.SandboxRun, error) {
		return g.applyInSandbox(ctx, policy, policyCwd, dir, text)
	}
	return c
}

// applyInSandbox runs `<binary> --codex-run-as-apply-patch` in dir under policy, the patch on
// its stdin (an argument would be capped at 128 KiB). Its environment holds only what the
// sandbox's roots depend on ($TMPDIR), and GORACE, so that a race-enabled test binary does
// not wait at exit.
func (g *Guard) applyInSandbox(ctx context.Context, policy protocol.SandboxPolicy, policyCwd, dir, text string) (applypatch.SandboxRun, error) {
	g.probeOnce.Do(func() { g.probe = sandbox.Probe(context.Background(), g.opts.Sandbox) })
	if g.probe.Err != nil {
		return applypatch.SandboxRun{}, g.probe.Err
	}
	exe, err := sandbox.Binary(g.opts.Sandbox)
	if err != nil {
		return applypatch.SandboxRun{}, err
	}
	environ := []string{}
	for _, key := range []string{"TMPDIR", "GORACE"} {
		if v := g.opts.Getenv(key); v != "" {
			environ = append(environ, key+"="+v)
		}
	}
	if err := g.beforeWrite(policy, policyCwd); err != nil {
		return applypatch.SandboxRun{}, err
	}
	probe := g.probe
	cmd, err := sandbox.Command(ctx, sandbox.Request{
		Policy: policy, PolicyCwd: policyCwd, Cwd: dir,
		Argv: []string{exe, patch.RunAsApplyPatchArg}, Env: environ,
		Probe: &probe, Options: g.opts.Sandbox,
	})
	if err != nil {
		return applypatch.SandboxRun{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	run := applypatch.SandboxRun{}
	err = cmd.Run()
	sandbox.Reclaim(cmd) // a helper cancelled with ctx leaves its placeholders to gocodex
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return applypatch.SandboxRun{}, err
		}
		run.ExitCode = exit.ExitCode()
	}
	run.Stdout, run.Stderr = stdout.String(), stderr.String()
	run.Denied = sandbox.LikelyDenied(run.ExitCode, run.Stdout, run.Stderr)
	return run, nil
}

// RememberPatchApprovals wraps the apply_patch handler so that a patch approved for the
// session is remembered file by file, as Codex keys it.
func (g *Guard) RememberPatchApprovals(h tool.Handler) tool.Handler {
	return patchMemory{Handler: h, g: g}
}

type patchMemory struct {
	tool.Handler
	g *Guard
}

func (m patchMemory) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	return m.Handler.Handle(ctx, m.g.RememberingEnv(env), call)
}

// RememberingEnv is env with its approval requests watched: a patch approved for the session
// is remembered file by file. Commands that turn out to be patches use it too.
func (g *Guard) RememberingEnv(env *tool.Env) *tool.Env {
	wrapped := *env
	ask := env.RequestApproval
	wrapped.RequestApproval = func(ctx context.Context, req tool.ApprovalRequest) (protocol.ReviewDecision, error) {
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
