package app

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
)

// McpHost is one thread's MCP client manager as the faces reach it: the app-server calls
// servers directly (mcpServer/tool/call, mcpServer/resource/read, mcpServerStatus/list)
// and restarts them after config.toml changed (config/mcpServer/reload). The thread's own
// MCP tools call through the host as well, so after a reload they reach the new servers.
type McpHost struct {
	opts mcp.Options // Servers is replaced by a reload

	mu     sync.Mutex
	mgr    *mcp.Manager
	closed bool
}

func newMcpHost(opts mcp.Options) *McpHost {
	return &McpHost{opts: opts, mgr: mcp.New(opts)}
}

// Manager is the current manager (replaced by Reload).
func (h *McpHost) Manager() *mcp.Manager {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mgr
}

// Reload replaces the servers with those of servers: the running ones are stopped and the
// new set starts in the background, reporting mcp_startup_update / mcp_startup_complete to
// the thread like the first start. Tools of servers the thread did not have when it started
// are reachable through the host (direct calls) but not offered to the model by this
// thread. A closed host ignores it.
func (h *McpHost) Reload(servers map[string]config.McpServerConfig) {
	opts := h.opts
	opts.Servers = servers
	next := mcp.New(opts)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	old := h.mgr
	h.mgr = next
	h.opts = opts
	h.mu.Unlock()
	_ = old.Close() // its events stop before the new ones start
	h.mu.Lock()
	defer h.mu.Unlock()
	// Started under the lock, so close (which takes it) stops what was started; a host
	// closed or reloaded again meanwhile has already stopped or replaced next.
	if !h.closed && h.mgr == next {
		next.Start()
	}
}

// close stops the current manager; later reloads do nothing.
func (h *McpHost) close() error {
	h.mu.Lock()
	h.closed = true
	m := h.mgr
	h.mu.Unlock()
	return m.Close()
}

// The mcptool.Manager methods, forwarded to the current manager.

func (h *McpHost) Names() []string                   { return h.Manager().Names() }
func (h *McpHost) Instructions(server string) string { return h.Manager().Instructions(server) }
func (h *McpHost) SupportsParallel(server string) bool {
	return h.Manager().SupportsParallel(server)
}
func (h *McpHost) Tools(ctx context.Context, server string) ([]*sdk.Tool, error) {
	return h.Manager().Tools(ctx, server)
}
func (h *McpHost) CallTool(ctx context.Context, server, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	return h.Manager().CallTool(ctx, server, tool, args)
}
func (h *McpHost) ListResources(ctx context.Context, server, cursor string) (*sdk.ListResourcesResult, error) {
	return h.Manager().ListResources(ctx, server, cursor)
}
func (h *McpHost) ListResourceTemplates(ctx context.Context, server, cursor string) (*sdk.ListResourceTemplatesResult, error) {
	return h.Manager().ListResourceTemplates(ctx, server, cursor)
}
func (h *McpHost) ReadResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error) {
	return h.Manager().ReadResource(ctx, server, uri)
}

// mcpHosts are the app's threads' hosts by thread id.
type mcpHosts struct {
	mu sync.Mutex
	m  map[string]*McpHost
}

func (hs *mcpHosts) add(id string, h *McpHost) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.m == nil {
		hs.m = map[string]*McpHost{}
	}
	hs.m[id] = h
}

func (hs *mcpHosts) remove(id string) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.m, id)
}

// McpHost returns the MCP host of one of the app's running threads; ok is false when the
// thread has no MCP server configured (or has ended).
func (a *App) McpHost(threadID string) (*McpHost, bool) {
	a.mcps.mu.Lock()
	defer a.mcps.mu.Unlock()
	h, ok := a.mcps.m[threadID]
	return h, ok
}
