package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is what the tools ask of the manager once servers run: their tools (waiting as
// a turn does), calls with the tool timeout, and resources.

// ErrUnknownServer is returned for a server that is not configured or not enabled.
var ErrUnknownServer = errors.New("unknown MCP server")

func (m *Manager) server(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w '%s'", ErrUnknownServer, name)
	}
	return s, nil
}

// ErrStillStarting is returned for an optional server still starting after the grace.
var ErrStillStarting = errors.New("MCP server is still starting")

// Tools returns a server's tools after enabled_tools/disabled_tools, waiting for it as a
// turn does: a required server until it settles (ready, failed or past its startup
// timeout), an optional one at most until the startup grace has passed. A server that is
// not ready has no tools and an error says why.
func (m *Manager) Tools(ctx context.Context, name string) ([]*sdk.Tool, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	if err := m.waitOffered(ctx, s); err != nil {
		return nil, err
	}
	return s.toolList(), nil
}

func (m *Manager) waitOffered(ctx context.Context, s *server) error {
	if s.cfg.Required || m.opts.OptionalGrace < 0 {
		return s.wait(ctx)
	}
	select {
	case <-s.settledCh:
	case <-m.graceEnd:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-s.settledCh:
		return s.wait(ctx)
	default:
		return fmt.Errorf("%w: %s", ErrStillStarting, s.name)
	}
}

// SupportsParallel reports the server's supports_parallel_tool_calls.
func (m *Manager) SupportsParallel(name string) bool {
	s, ok := m.servers[name]
	return ok && s.cfg.SupportsParallelToolCalls != nil && *s.cfg.SupportsParallelToolCalls
}

// ToolTimeout is the server's tool_timeout_sec.
func (m *Manager) ToolTimeout(name string) time.Duration {
	if s, ok := m.servers[name]; ok {
		return s.toolTimeout
	}
	return DefaultToolTimeout
}

// session returns a server's session once it is ready, waiting for a server still starting
// within its startup timeout.
func (m *Manager) session(ctx context.Context, name string) (*sdk.ClientSession, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	sess, err := s.readySession()
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// CallTool calls a tool with the server's tool timeout. A timeout is an error in Codex's
// words ("timed out awaiting tools/call after 1000ms").
func (m *Manager) CallTool(ctx context.Context, server, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	sess, err := m.session(ctx, server)
	if err != nil {
		return nil, err
	}
	timeout := m.ToolTimeout(server)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		return nil, fmt.Errorf("timed out awaiting tools/call after %dms", timeout.Milliseconds())
	}
	return res, err
}

// ListResources lists one page of a server's resources.
func (m *Manager) ListResources(ctx context.Context, server, cursor string) (*sdk.ListResourcesResult, error) {
	sess, err := m.session(ctx, server)
	if err != nil {
		return nil, err
	}
	return sess.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
}

// ListResourceTemplates lists one page of a server's resource templates.
func (m *Manager) ListResourceTemplates(ctx context.Context, server, cursor string) (*sdk.ListResourceTemplatesResult, error) {
	sess, err := m.session(ctx, server)
	if err != nil {
		return nil, err
	}
	return sess.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
}

// ReadResource reads one resource.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error) {
	sess, err := m.session(ctx, server)
	if err != nil {
		return nil, err
	}
	return sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
}

// Ready reports whether a server is up now (without waiting).
func (m *Manager) Ready(name string) bool {
	s, ok := m.servers[name]
	if !ok {
		return false
	}
	st, _ := s.status()
	return st == StateReady
}

// Instructions returns the instructions a ready server gave in its initialize result.
func (m *Manager) Instructions(name string) string {
	s, ok := m.servers[name]
	if !ok {
		return ""
	}
	sess, err := s.readySession()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(sess.InitializeResult().Instructions)
}

// HasResources reports whether a ready server advertises resources.
func (m *Manager) HasResources(name string) bool {
	s, ok := m.servers[name]
	if !ok {
		return false
	}
	sess, err := s.readySession()
	if err != nil {
		return false
	}
	caps := sess.InitializeResult().Capabilities
	return caps != nil && caps.Resources != nil
}
