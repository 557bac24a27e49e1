package app

import (
	"context"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
	"github.com/gocodex/gocodex/internal/tools/mcptool"
	"github.com/gocodex/gocodex/protocol"
)

// withMcp starts the thread's MCP servers in the background and offers their tools (one
// namespace per server, plus the resource tools). Servers marked `required` are waited for
// (each within its startup timeout): one that fails fails the thread with Codex's error.
// The returned close function ends the servers after the other tool resources.
func (a *App) withMcp(tc agent.ThreadConfig, closeTools func()) (agent.ThreadConfig, func(), error) {
	if !hasEnabledMcpServer(a.cfg.McpServers) {
		return tc, closeTools, nil
	}
	mgr := mcp.New(mcp.Options{
		Servers:    a.cfg.McpServers,
		Getenv:     a.opts.Getenv,
		HTTPClient: a.opts.HTTPClient,
		Logger:     a.opts.Logger,
		OnEvent:    a.mcpStartupEvent,
	})
	mgr.Start()
	if err := mgr.WaitRequired(context.Background()); err != nil {
		_ = mgr.Close()
		closeTools()
		return agent.ThreadConfig{}, nil, err
	}
	tc.ExtraTools = append(tc.ExtraTools, mcptool.Handlers(mgr, mcptool.Options{})...)
	return tc, func() {
		closeTools()
		_ = mgr.Close()
	}, nil
}

// mcpStartupEvent receives mcp_startup_update / mcp_startup_complete. The engine has no way
// yet to take events from outside a turn, so they are logged until it does.
func (a *App) mcpStartupEvent(ev protocol.EventMsg) {
	a.opts.Logger.Debug("mcp startup", "event", ev.EventType(), "msg", ev)
}

func hasEnabledMcpServer(servers map[string]config.McpServerConfig) bool {
	for _, s := range servers {
		if s.IsEnabled() {
			return true
		}
	}
	return false
}
