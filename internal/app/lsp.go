package app

import (
	"context"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/lsp"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/diagnostics"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// languageServers are a thread's language servers (none start until an edit or the
// diagnostics tool needs one), or nil with `lsp = false`. Their environment is the shell's
// policy with the default excludes applied (no *KEY*, *SECRET*, *TOKEN* variables).
func (a *App) languageServers(cfg *config.Config) *lsp.Manager {
	servers := lsp.Configured(cfg.Lsp)
	if len(servers) == 0 {
		return nil
	}
	envPolicy := cfg.ShellEnvironmentPolicy
	envPolicy.IgnoreDefaultExcludes = false
	return lsp.New(lsp.Options{
		Cwd:     cfg.Cwd,
		Servers: servers,
		Spawn: lsp.SandboxSpawner(lsp.SandboxOptions{
			Cwd:      cfg.Cwd,
			CacheDir: lsp.CacheDir(a.opts.Getenv),
			Environ:  process.BuildEnv(envPolicy, a.opts.Environ(), process.EnvOptions{}),
			Sandbox:  a.opts.Sandbox,
		}),
	})
}

// lspCall is a tool call's view of the servers: its turn's sandbox policy, and warnings
// (a missing server) sent as the turn's warning events.
func lspCall(env *tool.Env) lsp.Call {
	return lsp.Call{Policy: env.Sandbox, Warn: func(msg string) { env.Emit(protocol.WarningEvent{Message: msg}) }}
}

// diagnosticsAfterPatch is apply_patch's AfterWrite: the servers' errors and warnings for the
// files a patch wrote.
func diagnosticsAfterPatch(servers *lsp.Manager) func(ctx context.Context, env *tool.Env, paths []string) string {
	return func(ctx context.Context, env *tool.Env, paths []string) string {
		return lsp.Format(servers.AfterEdit(ctx, lspCall(env), paths), env.Cwd, lsp.MaxReported)
	}
}

// withLanguageServers offers the diagnostics tool, after the thread's other extra tools.
func withLanguageServers(extra []tool.Handler, servers *lsp.Manager) []tool.Handler {
	return append(append([]tool.Handler(nil), extra...), diagnostics.New(servers))
}

// diagnosingCommands wraps the command tools (shell, exec_command, write_stdin...): after a
// command, the files the servers have open that it changed are reported on, after its output.
func diagnosingCommands(handlers map[string]tool.Handler, servers *lsp.Manager) {
	for _, name := range []string{tools.NameShell, tools.NameShellCommand, tools.NameLocalShell, tools.NameExecCommand, tools.NameWriteStdin} {
		if h, ok := handlers[name]; ok {
			handlers[name] = diagnosingCommand{Handler: h, servers: servers}
		}
	}
}

type diagnosingCommand struct {
	tool.Handler
	servers *lsp.Manager
}

func (d diagnosingCommand) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	res, err := d.Handler.Handle(ctx, env, call)
	if err != nil || res.ContentItems != nil {
		return res, err
	}
	if note := lsp.Format(d.servers.AfterCommand(ctx, lspCall(env)), env.Cwd, lsp.MaxReported); note != "" {
		res.Output += "\n" + note
	}
	return res, nil
}
