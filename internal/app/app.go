// Package app is the host: the one process-wide place that wires everything. It owns the
// configuration the process started with, the model clients (one per provider and
// originator, built on first use), the MCP connections of its threads and the thread
// manager, and starts, resumes and forks threads, each with its own configuration when a face
// asks for per-thread overrides, without being rebuilt. Every face (exec, TUI, proto,
// app-server, mcp-server) holds one App and then speaks only the protocol.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/guard"
	"github.com/gocodex/gocodex/internal/host/agents"
	"github.com/gocodex/gocodex/internal/model"
	// Every wire registers its descriptor, which newStreamer reads.
	_ "github.com/gocodex/gocodex/internal/model/wires"
	"github.com/gocodex/gocodex/internal/process"
	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/internal/tools/unifiedexec"
	"github.com/gocodex/gocodex/modelstream"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
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
	// ExternalAuth, when it returns an authorizer, supplies ChatGPT credentials the process
	// holds itself (the app-server's chatgptAuthTokens sign-in) in place of stored ones.
	ExternalAuth func() Credentials
	// BypassHookTrust runs lifecycle hooks that are not trusted
	// (--dangerously-bypass-hook-trust).
	BypassHookTrust bool
	// DeferCredentials starts threads of an OpenAI-auth provider before any sign-in, as Codex
	// 0.171's app-server does: each request looks for credentials again and goes without
	// when there are none, so the server's 401 is the turn's error (pending_credentials.go).
	DeferCredentials bool
}

// Credentials are ChatGPT credentials a face holds itself (Options.ExternalAuth): they set a
// request's headers and recover from a 401 as the host's own sign-in does (model.Authorizer).
type Credentials interface {
	// Authorize sets the credential headers on h, refreshing them first when they are about
	// to expire.
	Authorize(ctx context.Context, h http.Header) error
	// Unauthorized is told the server answered 401; retry says to send the request again at
	// once with fresh credentials.
	Unauthorized(ctx context.Context) (retry bool, err error)
	// Succeeded ends a run of 401s.
	Succeeded()
}

// App holds what threads share: the configuration, the model clients and the thread manager.
type App struct {
	opts    Options
	cfg     *config.Config
	Manager *agent.ThreadManager
	mcps    mcpHosts // the threads' MCP servers, for faces (mcp_access.go)

	clientsMu sync.Mutex
	clients   map[clientKey]modelstream.Streamer

	// The sub-agents of multi_agent_v2 (subagents.go): the registry, built on first use, the
	// face that sees the children's events, and the threads' rollouts (a child copies its
	// parent's history).
	agentsOnce    sync.Once
	agents        atomic.Pointer[agents.Registry]
	observeMu     sync.Mutex
	observer      func(child Thread, parentThreadID string, ev protocol.Event) bool
	rolloutPaths  map[string]string
	threadConfigs map[string]*config.Config

	notifying sync.WaitGroup // notify programs not yet reaped (notify.go)
	releasing sync.WaitGroup // ended threads whose tools are still being released
}

// clientKey tells model clients apart: a thread whose overrides pick another provider (or a
// connection that names another originator) gets its own.
type clientKey struct {
	provider   string // the provider's settings, as JSON
	originator string
}

// New checks the configured provider (a missing API key is an error naming the variable) and
// builds its model client.
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
	a := &App{opts: opts, cfg: opts.Config, Manager: agent.NewThreadManager(opts.Logger), clients: map[clientKey]modelstream.Streamer{}}
	if _, err := a.clientFor(opts.Config, ""); err != nil {
		return nil, err
	}
	return a, nil
}

// clientFor returns the model client for cfg's provider, building it on first use.
func (a *App) clientFor(cfg *config.Config, originator string) (modelstream.Streamer, error) {
	if originator == "" {
		originator = a.opts.Originator
	}
	provider, err := json.Marshal(cfg.ModelProvider)
	if err != nil {
		return nil, fmt.Errorf("model provider: %w", err)
	}
	k := clientKey{provider: string(provider), originator: originator}
	a.clientsMu.Lock()
	defer a.clientsMu.Unlock()
	if c, ok := a.clients[k]; ok {
		return c, nil
	}
	httpClient := a.opts.HTTPClient
	if httpClient == nil {
		var err error
		if httpClient, err = auth.HTTPClient(a.opts.Getenv); err != nil {
			return nil, err
		}
	}
	cred, err := a.credentialsFor(cfg, originator, httpClient)
	if err != nil && a.opts.DeferCredentials && notSignedIn(cfg, err) {
		cred, err = a.pendingCredentials(cfg, originator, httpClient), nil
	}
	if err != nil {
		return nil, err
	}
	opts := model.ClientOptions{
		Provider:   cred.provider,
		APIKey:     cred.apiKey,
		HTTPClient: httpClient,
		Originator: originator,
		Getenv:     a.opts.Getenv,
		Logger:     a.opts.Logger,
	}
	if cred.authorizer != nil {
		_, pending := cred.authorizer.(*pendingAuthorizer)
		opts.Auth, opts.CompressZstd = cred.authorizer, !pending
	}
	c, err := newStreamer(opts)
	if err != nil {
		return nil, err
	}
	a.clients[k] = c
	return c, nil
}

// newStreamer builds the client of the provider's wire (its registered descriptor).
func newStreamer(opts model.ClientOptions) (modelstream.Streamer, error) {
	d, err := opts.Provider.WireDescriptor()
	if err != nil {
		return nil, err
	}
	return d.New(opts)
}

// ForgetClients drops the model clients built so far, so threads started from now on pick up
// changed credentials (a sign-in or sign-out while the process runs).
func (a *App) ForgetClients() {
	a.clientsMu.Lock()
	a.clients = map[clientKey]modelstream.Streamer{}
	a.clientsMu.Unlock()
}

// configOf is the configuration a thread runs with: its own, or the app's.
func (a *App) configOf(to ThreadOptions) *config.Config {
	if to.Config != nil {
		return to.Config
	}
	return a.cfg
}

// Config is the resolved configuration the app runs with.
func (a *App) Config() *config.Config { return a.cfg }

// Close ends every thread and waits, until ctx ends and at most releaseWait, for their tools
// to be released (background processes, language servers and what they started).
func (a *App) Close(ctx context.Context) error {
	if reg := a.agents.Load(); reg != nil {
		reg.Close() // the sub-agents end before the threads that spawned them
	}
	if err := a.Manager.Close(ctx); err != nil {
		return err
	}
	released := make(chan struct{})
	go func() { // ends when every release does
		a.releasing.Wait()
		close(released)
	}()
	limit := time.NewTimer(releaseWait)
	defer limit.Stop()
	select {
	case <-released:
		return nil
	case <-limit.C:
		return nil // what is left ends with this process (lifelines, death signals)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// releaseWait bounds how long Close waits for the threads' tools: a language server gets 2s
// to shut down before it is killed.
const releaseWait = 5 * time.Second

// ThreadOptions are per-thread choices a face makes on top of the configuration.
type ThreadOptions struct {
	// Config is the thread's own configuration (the process's with per-thread overrides, as
	// app-server's thread/start and mcp-server's codex tool give); nil means the app's.
	Config *config.Config
	// Originator names the client in the thread's model requests and session_meta (an
	// app-server connection's clientInfo); empty means the app's.
	Originator string

	// ThreadID and InitialHistory resume or fork a thread.
	ThreadID       string
	InitialHistory []protocol.ResponseItem
	// OutputSchema constrains every final answer (exec --output-schema).
	OutputSchema []byte

	// Ephemeral threads write no rollout. Otherwise the thread is recorded under
	// CODEX_HOME/sessions (see persist).
	Ephemeral bool
	// Resume continues the thread recorded in this rollout: its id, its history, and new
	// lines appended to the same file.
	Resume *rollout.Rollout
	// Source is the face recorded in session_meta ("exec", "cli", …; default "cli").
	Source string
	// ExtraTools are offered after the built-in tools (the app-server's thread goal tools).
	ExtraTools []tool.Handler
	// Subagent makes the thread a sub-agent of another (multi_agent_v2; subagents.go).
	Subagent *Subagent
}

// StartThread starts a thread with the app's configuration. Its tool processes end when
// the thread does.
func (a *App) StartThread(ctx context.Context, to ThreadOptions) (*agent.Thread, error) {
	tc, closeTools, err := a.threadConfig(to)
	if err != nil {
		return nil, err
	}
	th, err := a.Manager.StartThread(ctx, tc)
	if err != nil {
		closeTools()
		return nil, err
	}
	a.releasing.Add(1)
	go func() { // owned by the thread: ends when the thread is done
		defer a.releasing.Done()
		<-th.Done()
		a.Manager.RemoveThread(th.ID())
		a.forgetThread(th.ID())
		closeTools()
	}()
	return th, nil
}

// threadConfig builds the engine's configuration for one thread in one pass: the face's
// choices, its record (persist: history, resume, rollout; snapshots; notify) and its tools
// and model are written straight into it. The returned function releases the thread's
// resources (background processes, MCP servers, the rollout recorder).
func (a *App) threadConfig(to ThreadOptions) (agent.ThreadConfig, func(), error) {
	cfg := a.configOf(to)
	client, err := a.clientFor(cfg, to.Originator)
	if err != nil {
		return agent.ThreadConfig{}, nil, err
	}

	modelInfo := func(slug string) agent.ModelInfo { return modelInfo(cfg, slug) }
	info := modelInfo(cfg.Model)

	policy := execpolicy.Empty()
	if !a.opts.IgnoreRules {
		// A project's rules load only from its trusted .codex folders, and not a file a
		// session of an untrusted project wrote (config.Load has said which do not).
		p, err := execpolicy.Load(cfg.CodexHome, cfg.TrustedProjectFolders(), func(path string) bool { return cfg.ProjectFileRefused(path) == "" })
		if err != nil {
			return agent.ThreadConfig{}, nil, fmt.Errorf("load execpolicy rules: %w", err)
		}
		policy = p
	}
	writes := a.writeWindows(cfg) // writewindow.go
	g := guard.New(guard.Options{CodexHome: cfg.CodexHome, Policy: policy, Sandbox: a.opts.Sandbox, Getenv: a.opts.Getenv, BeforeWrite: writes.cover})

	catalog := model.LookupModel(cfg.Model, catalogOverrides(cfg))
	shellCfg := &shell.Config{
		Gate:         g.Exec,
		EnvPolicy:    cfg.ShellEnvironmentPolicy,
		Environ:      a.opts.Environ,
		Truncation:   truncation(catalog.TruncationPolicy),
		UserShell:    a.opts.Getenv("SHELL"),
		NoLoginShell: !cfg.AllowLoginShell,
	}
	uexec := unifiedexec.New(shellCfg, unifiedexec.Options{})
	handlers := map[string]tool.Handler{
		tools.NameShell:        shell.NewShell(shellCfg),
		tools.NameShellCommand: shell.NewShellCommand(shellCfg),
		tools.NameLocalShell:   shell.NewLocalShell(shellCfg),
	}
	for name, h := range uexec.Handlers() {
		handlers[name] = h
	}
	servers := a.languageServers(cfg) // lsp.go
	patchOpts := applypatch.Options{
		Freeform: catalog.ApplyPatchToolType == tools.ApplyPatchFreeform,
		Decide:   g.Patch,
		TurnDiff: (&turnDiffs{}).forTurn,
	}
	extraTools := to.ExtraTools
	if servers != nil {
		patchOpts.AfterWrite = diagnosticsAfterPatch(servers)
		extraTools = withLanguageServers(extraTools, servers)
	}
	patches := applypatch.New(patchOpts)
	handlers[tools.NameApplyPatch] = g.RememberPatchApprovals(patches)
	// A model that runs apply_patch through a command tool gets the patch tool, as in Codex.
	shellCfg.Intercept = func(ctx context.Context, env *tool.Env, callID, cwd string, argv []string) (tool.Result, bool, error) {
		return patches.Intercept(ctx, g.RememberingEnv(env), callID, cwd, argv)
	}
	addExtraHandlers(handlers, cfg)
	if servers != nil {
		diagnosingCommands(handlers, servers) // lsp.go
	}

	tc := agent.ThreadConfig{
		Model:           cfg.Model,
		ModelProviderID: cfg.ModelProviderID,
		ModelInfo:       info,
		Catalog:         modelInfo,
		Streamer:        client,
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
		BaseInstructions:      cfg.BaseInstructions,
		DeveloperInstructions: cfg.DeveloperInstructions,
		Agents: &agent.AgentsOptions{
			CodexHome:          cfg.CodexHome,
			Cwd:                cfg.Cwd,
			ConfigInstructions: cfg.UserInstructions,
			ProjectRootMarkers: cfg.ProjectRootMarkers,
			FallbackFilenames:  cfg.ProjectDocFallbackFilenames,
			MaxBytes:           int(cfg.ProjectDocMaxBytes),
		},
		Skills:         a.threadSkills(cfg),
		Shell:          prompt.ShellName(a.opts.Getenv),
		Timezone:       prompt.TimezoneName(a.opts.Getenv, os.Readlink),
		ToolHandlers:   handlers,
		UserShell:      shellCfg,
		OutputSchema:   to.OutputSchema,
		ExtraTools:     extraTools,
		ThreadID:       to.ThreadID,
		InitialHistory: to.InitialHistory,
		CompactPrompt:  cfg.CompactPrompt,
		ReviewModel:    cfg.ReviewModel,
		Logger:         a.opts.Logger,

		OnCleanBackgroundTerminals: uexec.CleanBackgroundTerminals,
		BackgroundTerminals:        backgroundTerminals{uexec},
	}
	// The thread's record (history, resumed state, rollout, snapshots, notify) goes straight
	// into tc; the rollout is closed once the thread's background processes (and language
	// servers) have ended and its write windows closed.
	releaseRecord, err := a.persist(&tc, cfg, to)
	if err != nil {
		uexec.Close()
		if servers != nil {
			servers.Close()
		}
		writes.end()
		return agent.ThreadConfig{}, nil, err
	}
	a.withSubagents(&tc, cfg, to)
	a.openSnapshots(&tc, cfg, to.Ephemeral)
	a.wrapNotify(&tc, cfg, to.Originator)
	tc, release, err := a.withMcp(cfg, tc, func() {
		uexec.Close()
		if servers != nil {
			servers.Close()
		}
		writes.end()
		releaseRecord()
	})
	if err != nil {
		return tc, release, err
	}
	return a.withHooks(cfg, tc), release, nil
}

func catalogOverrides(cfg *config.Config) model.CatalogOverrides {
	return model.CatalogOverrides{
		ContextWindow:         cfg.ModelContextWindow,
		AutoCompactTokenLimit: cfg.ModelAutoCompactTokenLimit,
		ToolOutputTokenLimit:  cfg.ToolOutputTokenLimit,
	}
}

// modelInfo maps the catalog entry of slug onto what the engine needs.
func modelInfo(cfg *config.Config, slug string) agent.ModelInfo {
	m := model.LookupModel(slug, catalogOverrides(cfg))
	return agent.ModelInfo{
		ContextWindow:                 m.ContextWindow,
		EffectiveContextWindowPercent: m.EffectiveContextWindowPercent,
		Tools: tool.Options{
			ShellType:          m.ShellType,
			ApplyPatchToolType: m.ApplyPatchToolType,
			NoLoginShell:       !cfg.AllowLoginShell,
			PlanTool:           true,
			ViewImage:          hasImageInput(m.InputModalities),
			RequestUserInput:   true,
			Hosted:             hostedTools(cfg, m),
		},
		ParallelToolCalls:       m.SupportsParallelToolCalls,
		SupportsReasoning:       m.SupportsReasoningSummaries,
		DefaultReasoningEffort:  m.DefaultReasoningLevel,
		DefaultReasoningSummary: m.DefaultReasoningSummary,
		DefaultVerbosity:        verbosity(m),
		AutoCompactTokenLimit:   m.AutoCompactTokenLimit,
	}
}

// hostedTools are the provider-run tools a thread offers: web_search on a wire that has it
// (the Responses API's; faceopts warns when the user asked for it elsewhere).
func hostedTools(cfg *config.Config, m model.ModelInfo) []tool.Spec {
	if !cfg.ModelProvider.Capabilities().HostedWebSearch {
		return nil
	}
	spec := tools.WebSearchSpec(cfg.WebSearchMode, cfg.SandboxPolicy.EffectiveMode() == protocol.SandboxDangerFullAccess,
		m.WebSearchToolType, cfg.Tools.WebSearchOptions)
	if spec == nil {
		return nil
	}
	return []tool.Spec{spec}
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

// backgroundTerminals shows the unified-exec manager to the engine as agent.BackgroundTerminals.
type backgroundTerminals struct{ m *unifiedexec.Manager }

func (b backgroundTerminals) Terminals() []agent.BackgroundTerminal {
	ts := b.m.Terminals()
	out := make([]agent.BackgroundTerminal, len(ts))
	for i, t := range ts {
		out[i] = agent.BackgroundTerminal{ProcessID: t.ProcessID, CallID: t.CallID, Command: t.Command, Cwd: t.Cwd}
	}
	return out
}

func (b backgroundTerminals) Terminate(processID string) bool { return b.m.Terminate(processID) }
