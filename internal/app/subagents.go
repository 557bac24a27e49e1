package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/host/agents"
	"github.com/gocodex/gocodex/internal/rollout"
	"github.com/gocodex/gocodex/internal/tools/collab"
	"github.com/gocodex/gocodex/internal/tools/toolsearch"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Subagent says a thread is a sub-agent (multi_agent_v2) and where it sits in its tree; its
// rollout is linked to its parent as Codex 0.169 links it.
type Subagent struct {
	ParentThreadID string
	RootThreadID   string
	Depth          int
	Path           string
	Nickname       string
	Role           string // the [agents.<role>] it was spawned as, if any
}

// featureMultiAgentV2 is the flag that offers the collaboration tools.
const featureMultiAgentV2 = "multi_agent_v2"

// featureMultiAgent is the flag (on by default) that offers the v1 tools behind tool_search.
const featureMultiAgent = "multi_agent"

// Subagents is the host's registry of sub-agents, built on first use. A face sets Observe
// before its first thread to see the children's events.
func (a *App) Subagents() *agents.Registry {
	a.agentsOnce.Do(func() {
		maxThreads, maxDepth := agentLimits(a.cfg)
		table, _ := a.cfg.Effective["agents"].(map[string]any)
		roles, rolesErr := agents.RolesFromConfig(table, a.cfg.CodexHome)
		a.agents.Store(agents.New(agents.Options{
			Start:      a.startChild,
			MaxThreads: maxThreads,
			MaxDepth:   maxDepth,
			Roles:      roles,
			RolesError: rolesErr,
			Observe:    a.observeChild,
			Logger:     a.opts.Logger,
		}))
	})
	return a.agents.Load()
}

// ObserveSubagents has f see every event of every sub-agent, with its parent's id; f says
// whether a face showed it (and will answer its approvals). An approval request no face
// showed is denied.
func (a *App) ObserveSubagents(f func(child Thread, parentThreadID string, ev protocol.Event) bool) {
	a.observeMu.Lock()
	a.observer = f
	a.observeMu.Unlock()
}

func (a *App) observeChild(th agents.Thread, parentThreadID string, ev protocol.Event) bool {
	a.observeMu.Lock()
	f := a.observer
	a.observeMu.Unlock()
	at, ok := th.(*agent.Thread)
	if f == nil || !ok {
		return false
	}
	return f(at, parentThreadID, ev)
}

// withSubagents gives a thread what its place in a tree asks for: a sub-agent its request
// headers; a root of a multi_agent_v2 configuration the collaboration tools, the team's
// instructions and an interrupt that reaches its children.
func (a *App) withSubagents(tc *agent.ThreadConfig, cfg *config.Config, to ThreadOptions) {
	if sa := to.Subagent; sa != nil {
		tc.RequestHeaders = map[string]string{"x-openai-subagent": "collab_spawn", "x-codex-parent-thread-id": sa.ParentThreadID}
		// A child below [agents] max_depth may spawn its own; at the default depth (1) it is
		// not offered the tools, and a call gets Codex's "unsupported call".
		if reg := a.Subagents(); sa.Depth < reg.MaxDepth() {
			tc.ExtraTools = append([]tool.Handler{collab.New(reg)}, tc.ExtraTools...)
		}
		return
	}
	v2 := cfg.FeatureEnabled(featureMultiAgentV2, false)
	if !v2 && !cfg.FeatureEnabled(featureMultiAgent, true) {
		return
	}
	if tc.ThreadID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return
		}
		tc.ThreadID = id.String()
	}
	reg := a.Subagents()
	if v2 {
		tc.ExtraTools = append([]tool.Handler{collab.New(reg)}, tc.ExtraTools...)
		if to.Resume == nil {
			tc.ContextMessages = reg.RootInstructions()
		}
	} else {
		// multi_agent (v1): the tools are deferred, found through tool_search, as Codex 0.169
		// offers them.
		v1 := collab.NewV1(reg)
		tc.ExtraTools = append(tc.ExtraTools, v1, toolsearch.New(v1))
	}
	id := tc.ThreadID
	tc.OnInterrupt = func() { reg.InterruptChildren(id) }
	a.rememberThread(id, "", cfg)
}

// forgetThread drops what rememberThread kept of an ended thread.
func (a *App) forgetThread(id string) {
	a.observeMu.Lock()
	delete(a.rolloutPaths, id)
	delete(a.threadConfigs, id)
	a.observeMu.Unlock()
	if reg := a.agents.Load(); reg != nil {
		reg.Forget(id)
	}
}

// rememberThread keeps what a child needs of its parent: its rollout (the history it
// copies) and its configuration (a face's per-thread overrides reach the children).
func (a *App) rememberThread(id, rolloutPath string, cfg *config.Config) {
	a.observeMu.Lock()
	defer a.observeMu.Unlock()
	if rolloutPath != "" {
		if a.rolloutPaths == nil {
			a.rolloutPaths = map[string]string{}
		}
		a.rolloutPaths[id] = rolloutPath
	}
	if cfg != nil {
		if a.threadConfigs == nil {
			a.threadConfigs = map[string]*config.Config{}
		}
		a.threadConfigs[id] = cfg
	}
}

// startChild starts a sub-agent: a thread of its own on the parent's turn settings, its
// history a copy of the parent's (fork_turns "all"), its first turn opened by its task.
func (a *App) startChild(ctx context.Context, c agents.Child) (agents.Thread, error) {
	a.observeMu.Lock()
	parent := a.threadConfigs[c.ParentThreadID]
	a.observeMu.Unlock()
	if parent == nil {
		parent = a.cfg
	}
	cfg := *parent
	cfg.Cwd, cfg.SandboxPolicy, cfg.ApprovalPolicy = c.Cwd, c.Sandbox, c.Approval
	if c.Model != "" {
		// gocodex's own: "provider/model" runs the child on another configured provider.
		if id, slug, ok := strings.Cut(c.Model, "/"); ok {
			if p, known := cfg.ModelProviders[id]; known {
				cfg.ModelProviderID, cfg.ModelProvider, c.Model = id, p, slug
			}
		}
		cfg.Model = c.Model
	}
	if c.ReasoningEffort != "" {
		cfg.ReasoningEffort = c.ReasoningEffort
	}
	if c.DeveloperInstructions != "" {
		cfg.DeveloperInstructions = c.DeveloperInstructions
	}
	var history []protocol.ResponseItem
	if c.ForkHistory {
		h, err := a.historyOf(c.ParentThreadID)
		if err != nil {
			return nil, err
		}
		history = append(h, c.Opening[:len(c.Opening)-1]...)
	}
	th, err := a.StartThread(ctx, ThreadOptions{Config: &cfg, Source: "exec", InitialHistory: history,
		Subagent: &Subagent{ParentThreadID: c.ParentThreadID, RootThreadID: c.RootThreadID, Depth: c.Depth, Path: c.Path, Nickname: c.Nickname, Role: c.Role}})
	if err != nil {
		return nil, err
	}
	opening := c.Opening
	if c.ForkHistory {
		opening = opening[len(opening)-1:] // the instructions are in the history already
	}
	raw := make([]json.RawMessage, 0, len(opening))
	for _, it := range opening {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		raw = append(raw, b)
	}
	if _, err := th.Submit(protocol.GoalTurnOp{Items: raw}); err != nil {
		return nil, err
	}
	return th, nil
}

// historyOf is a running thread's history as its rollout holds it, a call still open (the
// spawn itself) answered "aborted", as Codex copies it into a child.
func (a *App) historyOf(threadID string) ([]protocol.ResponseItem, error) {
	a.observeMu.Lock()
	path := a.rolloutPaths[threadID]
	a.observeMu.Unlock()
	if path == "" {
		return nil, fmt.Errorf("the parent thread keeps no rollout: spawn with fork_turns \"none\"")
	}
	ro, err := rollout.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the parent's history: %w", err)
	}
	hist := ro.Reconstruct().History
	answered := map[string]bool{}
	for _, it := range hist {
		if o, ok := it.(protocol.FunctionCallOutputItem); ok {
			answered[o.CallID] = true
		}
	}
	var out []protocol.ResponseItem
	for _, it := range hist {
		out = append(out, it)
		if c, ok := it.(protocol.FunctionCallItem); ok && !answered[c.CallID] {
			out = append(out, protocol.FunctionCallOutputItem{CallID: c.CallID, Output: protocol.FunctionCallOutputPayload{Content: "aborted"}})
		}
	}
	return out, nil
}

// subagentSource is session_meta's source of a sub-agent, as Codex 0.169 writes it.
func subagentSource(sa *Subagent) json.RawMessage {
	var role any // null when spawned without a role, as Codex writes it
	if sa.Role != "" {
		role = sa.Role
	}
	b, _ := json.Marshal(map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{
		"parent_thread_id": sa.ParentThreadID, "depth": sa.Depth, "agent_path": sa.Path,
		"agent_nickname": sa.Nickname, "agent_role": role}}})
	return b
}

// linkSubagent writes a sub-agent's links (or a v2 root's version) into its session_meta.
func linkSubagent(meta *rollout.SessionMeta, cfg *config.Config, sa *Subagent) {
	if sa == nil {
		if cfg.FeatureEnabled(featureMultiAgentV2, false) {
			meta.MultiAgentVersion = "v2"
		}
		return
	}
	meta.SessionID, meta.ParentThreadID, meta.ForkedFromID = sa.RootThreadID, sa.ParentThreadID, sa.ParentThreadID
	meta.Source, meta.ThreadSource = subagentSource(sa), "subagent"
	meta.AgentNickname, meta.AgentPath, meta.AgentRole, meta.MultiAgentVersion = sa.Nickname, sa.Path, sa.Role, "v2"
}

// agentLimits are the [agents] settings Codex reads (max_threads, max_depth); 0 is Codex's
// default.
func agentLimits(cfg *config.Config) (maxThreads, maxDepth int) {
	t, _ := cfg.Effective["agents"].(map[string]any)
	num := func(v any) int {
		switch n := v.(type) {
		case int64:
			return int(n)
		case int:
			return n
		case float64:
			return int(n)
		}
		return 0
	}
	return num(t["max_threads"]), num(t["max_depth"])
}
