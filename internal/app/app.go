// Package app is the one place that wires everything: it turns a resolved configuration into
// a model client, tool handlers, a guard (approvals and sandbox) and engine threads. Faces
// (exec, proto, app-server, mcp-server) start threads through it and then speak only the
// protocol.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/guard"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/internal/tools/unifiedexec"
	"github.com/gocodex/gocodex/protocol"
)

// OriginatorOverrideEnv lets SDKs name themselves in the originator header, as with Codex.
const OriginatorOverrideEnv = "CODEX_INTERNAL_ORIGINATOR_OVERRIDE"

// Options are the process-wide inputs of an App.
type Options struct {
	Config *config.Config
	// Getenv and Environ read the process environment; nil means os.Getenv / os.Environ.
	Getenv  func(string) string
	Environ func() []string
	// Originator is the face's default originator ("codex_exec", "codex_cli_rs", …); the
	// CODEX_INTERNAL_ORIGINATOR_OVERRIDE variable wins.
	Originator string
	Logger     *slog.Logger
	HTTPClient *http.Client
	// IgnoreRules skips execpolicy .rules files (--ignore-rules).
	IgnoreRules bool
	// Sandbox tunes the sandbox (tests turn mechanisms off).
	Sandbox sandbox.Options
}

// App holds what threads share: the configuration, the model client and the thread manager.
type App struct {
	opts    Options
	cfg     *config.Config
	client  *model.Client
	Manager *agent.ThreadManager
	mcps    mcpHosts // the threads' MCP servers, for faces (mcp_access.go)
}

// New checks the provider (a missing API key is an error naming the variable) and builds the
// model client.
func New(opts Options) (*App, error) {
	if opts.Config == nil {
		return nil, fmt.Errorf("app: no configuration")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if o := opts.Getenv(OriginatorOverrideEnv); o != "" {
		opts.Originator = o
	}
	if opts.Originator == "" {
		opts.Originator = model.DefaultOriginator
	}
	cfg := opts.Config
	key, err := model.ResolveAPIKey(cfg.ModelProvider, model.AuthOptions{Getenv: opts.Getenv, CodexHome: cfg.CodexHome})
	if err != nil {
		return nil, err
	}
	client, err := model.NewClient(model.ClientOptions{
		Provider:   cfg.ModelProvider,
		APIKey:     key,
		HTTPClient: opts.HTTPClient,
		Originator: opts.Originator,
		Getenv:     opts.Getenv,
		Logger:     opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &App{opts: opts, cfg: cfg, client: client, Manager: agent.NewThreadManager(opts.Logger)}, nil
}

// Config is the resolved configuration the app runs with.
func (a *App) Config() *config.Config { return a.cfg }

// Close ends every thread.
func (a *App) Close(ctx context.Context) error { return a.Manager.Close(ctx) }

// ThreadOptions are per-thread choices a face makes on top of the configuration.
type ThreadOptions struct {
	// ThreadID and InitialHistory resume or fork a thread.
	ThreadID       string
	InitialHistory []protocol.ResponseItem
	Recorder       agent.Recorder
	RolloutPath    string
	History        agent.MessageHistory
	HistoryLogID   uint64
	HistoryCount   int
	// OutputSchema constrains every final answer (exec --output-schema).
	OutputSchema []byte

	// Ephemeral threads write no rollout. Otherwise, unless Recorder is set, the thread is
	// recorded under CODEX_HOME/sessions (see persist).
	Ephemeral bool
	// Resume continues the thread recorded in this rollout: its id, its history, and new
	// lines appended to the same file.
	Resume *rollout.Rollout
	// Source is the face recorded in session_meta ("exec", "cli", …; default "cli").
	Source string
	// InitialUsage restores a resumed thread's token usage (set from Resume).
	InitialUsage *protocol.TokenUsageInfo
	// ForkedFromID and InitialMessages go into session_configured (set from Resume).
	ForkedFromID    string
	InitialMessages []protocol.EventMsg
	// BaseInstructions, when set and the configuration names none, are the thread's base
	// instructions: a resumed thread keeps the ones recorded in its session_meta.
	BaseInstructions string
}

// StartThread starts a thread with the app's configuration. Its tool processes end when
// the thread does.
func (a *App) StartThread(ctx context.Context, to ThreadOptions) (*agent.Thread, error) {
	release, err := a.persist(&to)
	if err != nil {
		return nil, err
	}
	tc, closeTools, err := a.ThreadConfig(to)
	if err != nil {
		release()
		return nil, err
	}
	th, err := a.Manager.StartThread(ctx, tc)
	if err != nil {
		closeTools()
		release()
		return nil, err
	}
	go func() { // owned by the thread: ends when the thread is done
		<-th.Done()
		closeTools()
		release()
	}()
	return th, nil
}

// ThreadConfig builds the engine's configuration for one thread, and a function that
// releases the thread's tool resources (background processes).
func (a *App) ThreadConfig(to ThreadOptions) (agent.ThreadConfig, func(), error) {
	cfg := a.cfg
	info := a.modelInfo(cfg.Model)

	policy := execpolicy.Empty()
	if !a.opts.IgnoreRules {
		p, err := execpolicy.Load(cfg.CodexHome, cfg.ProjectRoot)
		if err != nil {
			return agent.ThreadConfig{}, nil, fmt.Errorf("load execpolicy rules: %w", err)
		}
		policy = p
	}
	g := guard.New(guard.Options{CodexHome: cfg.CodexHome, Policy: policy, Sandbox: a.opts.Sandbox, Getenv: a.opts.Getenv})

	catalog := model.LookupModel(cfg.Model, a.catalogOverrides())
	shellCfg := &shell.Config{
		Gate:         g.Exec,
		EnvPolicy:    cfg.ShellEnvironmentPolicy,
		Environ:      a.opts.Environ,
		Truncation:   truncation(catalog.TruncationPolicy),
		UserShell:    a.opts.Getenv("SHELL"),
		NoLoginShell: !cfg.AllowLoginShell,
	}
	uexec := unifiedexec.New(shellCfg, unifiedexec.Options{})
	handlers := map[string]tools.Handler{
		tools.NameShell:        shell.NewShell(shellCfg),
		tools.NameShellCommand: shell.NewShellCommand(shellCfg),
		tools.NameLocalShell:   shell.NewLocalShell(shellCfg),
	}
	for name, h := range uexec.Handlers() {
		handlers[name] = h
	}
	patches := applypatch.New(applypatch.Options{
		Freeform: catalog.ApplyPatchToolType == tools.ApplyPatchFreeform,
		Decide:   g.Patch,
		TurnDiff: (&turnDiffs{}).forTurn,
	})
	handlers[tools.NameApplyPatch] = g.RememberPatchApprovals(patches)
	// A model that runs apply_patch through a command tool gets the patch tool, as in Codex.
	shellCfg.Intercept = func(ctx context.Context, env *tools.Env, callID, cwd string, argv []string) (tools.Result, bool, error) {
		e := g.RememberingEnv(env)
		e.Cwd = cwd
		return patches.Intercept(ctx, e, callID, argv)
	}
	addExtraHandlers(handlers)

	tc := agent.ThreadConfig{
		Model:           cfg.Model,
		ModelProviderID: cfg.ModelProviderID,
		ModelInfo:       info,
		Catalog:         a.modelInfo,
		Streamer:        a.client.Streamer(),
		Cwd:             cfg.Cwd,
		ApprovalPolicy:  cfg.ApprovalPolicy,
		SandboxPolicy:   cfg.SandboxPolicy,
		WritableRoots: func(p protocol.SandboxPolicy, cwd string) []string {
			var roots []string
			for _, r := range sandbox.WritableRoots(p, cwd, a.opts.Getenv) {
				roots = append(roots, r.Root)
			}
			return roots
		},
		ReasoningEffort:       cfg.ReasoningEffort,
		ReasoningSummary:      cfg.ReasoningSummary,
		Verbosity:             cfg.Verbosity,
		ServiceTier:           cfg.ServiceTier,
		BaseInstructions:      firstNonEmpty(cfg.BaseInstructions, to.BaseInstructions),
		DeveloperInstructions: cfg.DeveloperInstructions,
		Agents: &agent.AgentsOptions{
			CodexHome:          cfg.CodexHome,
			Cwd:                cfg.Cwd,
			ConfigInstructions: cfg.UserInstructions,
			ProjectRootMarkers: cfg.ProjectRootMarkers,
			FallbackFilenames:  cfg.ProjectDocFallbackFilenames,
			MaxBytes:           int(cfg.ProjectDocMaxBytes),
		},
		Shell:             prompt.ShellName(a.opts.Getenv),
		Timezone:          prompt.TimezoneName(a.opts.Getenv, os.Readlink),
		ToolHandlers:      handlers,
		UserShell:         shellCfg,
		OutputSchema:      to.OutputSchema,
		ThreadID:          to.ThreadID,
		InitialHistory:    to.InitialHistory,
		Recorder:          to.Recorder,
		RolloutPath:       to.RolloutPath,
		History:           to.History,
		HistoryLogID:      to.HistoryLogID,
		HistoryEntryCount: to.HistoryCount,
		InitialUsage:      to.InitialUsage,
		CompactPrompt:     cfg.CompactPrompt,
		ForkedFromID:      to.ForkedFromID,
		InitialMessages:   to.InitialMessages,
		Logger:            a.opts.Logger,

		OnCleanBackgroundTerminals: uexec.CleanBackgroundTerminals,
	}
	return a.withMcp(tc, uexec.Close)
}

func (a *App) catalogOverrides() model.CatalogOverrides {
	return model.CatalogOverrides{
		ContextWindow:         a.cfg.ModelContextWindow,
		AutoCompactTokenLimit: a.cfg.ModelAutoCompactTokenLimit,
		ToolOutputTokenLimit:  a.cfg.ToolOutputTokenLimit,
	}
}

// modelInfo maps the catalog entry of slug onto what the engine needs.
func (a *App) modelInfo(slug string) agent.ModelInfo {
	m := model.LookupModel(slug, a.catalogOverrides())
	cfg := a.cfg
	return agent.ModelInfo{
		ContextWindow:                 m.ContextWindow,
		EffectiveContextWindowPercent: m.EffectiveContextWindowPercent,
		Tools: tools.Options{
			ShellType:          m.ShellType,
			ApplyPatchToolType: m.ApplyPatchToolType,
			NoLoginShell:       !cfg.AllowLoginShell,
			PlanTool:           true,
			ViewImage:          hasImageInput(m.InputModalities),
		},
		ParallelToolCalls:       m.SupportsParallelToolCalls,
		SupportsReasoning:       m.SupportsReasoningSummaries,
		DefaultReasoningEffort:  m.DefaultReasoningLevel,
		DefaultReasoningSummary: m.DefaultReasoningSummary,
		DefaultVerbosity:        verbosity(m),
		AutoCompactTokenLimit:   m.AutoCompactTokenLimit,
	}
}

func verbosity(m model.ModelInfo) string {
	if !m.SupportVerbosity {
		return ""
	}
	return m.DefaultVerbosity
}

func hasImageInput(modalities []string) bool {
	for _, m := range modalities {
		if m == "image" {
			return true
		}
	}
	return false
}

func truncation(p model.TruncationPolicy) process.TruncationPolicy {
	if p.Mode == "bytes" {
		return process.Bytes(int(p.Limit))
	}
	return process.Tokens(int(p.Limit))
}

// HelperExecutable is the binary the sandbox re-executes: this one.
func HelperExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		return resolved
	}
	return exe
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
