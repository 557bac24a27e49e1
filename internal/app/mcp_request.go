package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
)

// MCP servers for one request: the app-server's MCP methods without a thread start the
// servers of the current config.toml for the request and stop them after it, as Codex does.

// StartMcpServers starts servers for one request, waiting for each up to its startup
// timeout when asked; Close stops them.
func StartMcpServers(servers map[string]config.McpServerConfig, getenv func(string) string, hc *http.Client, logger *slog.Logger) *McpHost {
	h := newMcpHost(mcp.Options{Servers: servers, Getenv: getenv, HTTPClient: hc, Logger: logger,
		// Wait for every server up to its startup timeout: the answer describes them all.
		OptionalGrace: -1})
	h.Manager().Start()
	return h
}

// Close stops the servers of a host StartMcpServers returned.
func (h *McpHost) Close() error { return h.close() }

// McpServerStatus is one server's status as a face reports it: the manager's, with its
// state spelled out (none of the three: still starting).
type McpServerStatus struct {
	mcp.ServerStatus
	Ready, Failed, Cancelled bool
}

// Status is a server's status; ok is false for a server the host does not have.
func (h *McpHost) Status(name string) (McpServerStatus, bool) {
	st, ok := h.Manager().Status(name)
	return McpServerStatus{ServerStatus: st, Ready: st.State == mcp.StateReady, Failed: st.State == mcp.StateFailed,
		Cancelled: st.State == mcp.StateCancelled}, ok
}

// UnknownMcpServer is the error for a server no host has (IsUnknownMcpServer says so).
func UnknownMcpServer(name string) error { return fmt.Errorf("%w '%s'", mcp.ErrUnknownServer, name) }

// IsUnknownMcpServer says whether err is about a server the host does not have.
func IsUnknownMcpServer(err error) bool { return errors.Is(err, mcp.ErrUnknownServer) }
