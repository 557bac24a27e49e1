package app

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
	"github.com/gocodex/gocodex/internal/mcp/oauth"
	"github.com/gocodex/gocodex/internal/tools/mcptool"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// withMcp starts the thread's MCP servers in the background and offers their tools (one
// namespace per server, plus the resource tools). Servers marked `required` are waited for
// (each within its startup timeout): one that fails fails the thread with Codex's error.
// The returned close function ends the servers after the other tool resources.
func (a *App) withMcp(cfg *config.Config, tc agent.ThreadConfig, closeTools func()) (agent.ThreadConfig, func(), error) {
	if !hasEnabledMcpServer(cfg.McpServers) {
		return tc, closeTools, nil
	}
	// The startup events wait in the relay for the thread to take them (see mcpStartupEvent).
	relay := &mcp.Relay{}
	host := newMcpHost(mcp.Options{
		Servers:    cfg.McpServers,
		Getenv:     a.opts.Getenv,
		HTTPClient: a.opts.HTTPClient,
		OAuthStore: oauth.StoreFor(cfg.CodexHome, cfg.McpOAuthCredentialsStore),
		Logger:     a.opts.Logger,
		OnEvent:    relay.Emit,
		// Codex reads mcp_optional_startup_grace_ms from the top level.
		OptionalGrace: optionalGrace(cfg.Effective["mcp_optional_startup_grace_ms"]),
	})
	mgr := host.Manager()
	mgr.Start()
	if err := mgr.WaitRequired(context.Background()); err != nil {
		_ = host.close()
		closeTools()
		return agent.ThreadConfig{}, nil, err
	}
	// The id is chosen here (as the engine would) so faces can find the thread's host.
	if tc.ThreadID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			_ = host.close()
			closeTools()
			return agent.ThreadConfig{}, nil, err
		}
		tc.ThreadID = id.String()
	}
	a.mcps.add(tc.ThreadID, host)
	tc.ExtraToolsFunc = (&mcpTools{host: host}).current
	tc.OnStarted = relay.Attach
	tc.ListMcpTools = func(ctx context.Context) protocol.McpListToolsResponseEvent {
		// Bounded: the thread answers ops one at a time.
		ctx, cancel := context.WithTimeout(ctx, listMcpToolsTimeout)
		defer cancel()
		return host.Manager().ListTools(ctx)
	}
	id := tc.ThreadID
	return tc, func() {
		closeTools()
		relay.Attach(nil)
		a.mcps.remove(id)
		_ = host.close()
	}, nil
}

// listMcpToolsTimeout bounds a list_mcp_tools answer (resources are listed live).
const listMcpToolsTimeout = 10 * time.Second

// optionalGrace reads mcp_optional_startup_grace_ms; 0 ms waits for no optional server.
func optionalGrace(v any) time.Duration {
	var ms int64
	switch n := v.(type) {
	case int64:
		ms = n
	case float64:
		ms = int64(n)
	default:
		return 0 // the manager's default
	}
	if ms <= 0 {
		return time.Nanosecond
	}
	return time.Duration(ms) * time.Millisecond
}

func hasEnabledMcpServer(servers map[string]config.McpServerConfig) bool {
	for _, s := range servers {
		if s.IsEnabled() {
			return true
		}
	}
	return false
}

// mcpTools offers the tools of a thread's MCP servers as they are now: a server a config
// reload adds is offered from the next turn. Each server keeps its handler (and with it the
// tools the person approved for the session) for as long as it is configured.
type mcpTools struct {
	host *McpHost

	mu        sync.Mutex
	resources []tool.Handler
	servers   map[string]tool.Handler
}

func (p *mcpTools) current() []tool.Handler {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := p.host.Names()
	if len(names) == 0 {
		return nil
	}
	if p.resources == nil {
		// Codex sends the resource tools before the namespaces.
		p.resources = mcptool.NewResourceHandlers(p.host, mcptool.Options{})
		p.servers = map[string]tool.Handler{}
	}
	out := append([]tool.Handler(nil), p.resources...)
	for _, name := range names {
		h, ok := p.servers[name]
		if !ok {
			h = mcptool.NewNamespace(p.host, name, mcptool.Options{})
			p.servers[name] = h
		}
		out = append(out, h)
	}
	return out
}
