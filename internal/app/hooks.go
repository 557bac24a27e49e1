package app

import (
	"context"
	"os/exec"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/hooks"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// ListHooks are a configuration's hooks, each with whether it is enabled and its trust, and
// the warnings of reading them (hooks/list).
func ListHooks(cfg *config.Config) (listed []hooks.Listed, warnings []string) {
	listed, _, warnings = hooks.List(hooksOptions(cfg))
	return listed, warnings
}

// hooksOptions says where a configuration's hooks are and which of its project's may load
// (the trusted .codex folders' files that no untrusted session wrote): the one reading of
// them, for threads and for hooks/list.
func hooksOptions(cfg *config.Config) hooks.Options {
	o := hooks.Options{
		CodexHome:      cfg.CodexHome,
		ProjectFolders: cfg.TrustedProjectFolders(),
		Keep:           func(path string) bool { return cfg.ProjectFileRefused(path) == "" },
	}
	for _, f := range cfg.ProjectFolders {
		if !f.Trusted() {
			o.NotLoaded = append(o.NotLoaded, f.Dir)
		}
	}
	return o
}

// withHooks gives a thread the person's lifecycle hooks (feature `hooks`, on by default;
// `codex_hooks` is its old name). What could not be loaded, and hooks that will not run,
// are shown once as warnings when the thread starts.
func (a *App) withHooks(cfg *config.Config, tc agent.ThreadConfig) agent.ThreadConfig {
	if !cfg.FeatureEnabled("hooks", cfg.FeatureEnabled("codex_hooks", true)) {
		return tc
	}
	o := hooksOptions(cfg)
	o.BypassTrust, o.Environ = a.opts.BypassHookTrust, a.opts.Environ
	o.NotLoaded = nil // config.Load has said which folders do not load, once
	// Hooks run inside the thread's sandbox policy, like the model's commands (Codex 0.169
	// runs them unconfined; the issue asks for the policy).
	o.Confine = func(ctx context.Context, argv []string, cwd string, env []string) (*exec.Cmd, error) {
		return sandbox.Command(ctx, sandbox.Request{Policy: cfg.SandboxPolicy, PolicyCwd: cfg.Cwd, Cwd: cwd, Argv: argv, Env: env, Options: a.opts.Sandbox})
	}
	engine, warnings := hooks.Load(o)
	if a.opts.BypassHookTrust {
		warnings = append([]string{"`--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation."}, warnings...)
	}
	if len(engine.Handlers()) > 0 {
		tc.Hooks = hookRunner{engine}
	}
	if l := a.opts.Logger; l != nil {
		for _, w := range warnings {
			l.Warn(w)
		}
	}
	if len(warnings) > 0 {
		started := tc.OnStarted
		tc.OnStarted = func(emit func(protocol.EventMsg)) {
			for _, w := range warnings {
				emit(protocol.WarningEvent{Message: w})
			}
			if started != nil {
				started(emit)
			}
		}
	}
	return tc
}

// hookRunner adapts the hooks engine to the engine's Hooks interface.
type hookRunner struct{ e *hooks.Engine }

func (r hookRunner) Run(ctx context.Context, in agent.HookInput, emit func(protocol.EventMsg)) agent.HookOutcome {
	out := r.e.Run(ctx, hooks.Input{
		Event: hooks.Event(in.Event), SessionID: in.SessionID, TurnID: in.TurnID, TranscriptPath: in.TranscriptPath,
		Cwd: in.Cwd, Model: in.Model, PermissionMode: in.PermissionMode, Source: in.Source, Prompt: in.Prompt,
		ToolName: in.ToolName, ToolInput: in.ToolInput, ToolResponse: in.ToolResponse, ToolUseID: in.ToolUseID,
		StopHookActive: in.StopHookActive, LastAssistantMessage: in.LastAssistantMessage,
	}, emit)
	return agent.HookOutcome{Blocked: out.Blocked, Reason: out.Reason, BlockedBy: out.BlockedBy, Context: out.Context}
}
