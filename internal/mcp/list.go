package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/protocol"
)

// ListTools answers the list_mcp_tools op: every ready server's tools keyed by their flat
// qualified name, its resources and resource templates keyed by server, and each server's
// auth status ("unsupported": we do no OAuth). Servers still starting are waited for within
// their startup timeout, like a turn does.
func (m *Manager) ListTools(ctx context.Context) protocol.McpListToolsResponseEvent {
	ev := protocol.McpListToolsResponseEvent{
		Tools:             map[string]json.RawMessage{},
		Resources:         map[string]json.RawMessage{},
		ResourceTemplates: map[string]json.RawMessage{},
		AuthStatuses:      map[string]json.RawMessage{},
	}
	for _, name := range m.names {
		ev.AuthStatuses[name] = json.RawMessage(`"unsupported"`)
		tools, err := m.Tools(ctx, name)
		if err != nil {
			continue
		}
		for _, t := range tools {
			if b, err := json.Marshal(t); err == nil {
				ev.Tools[QualifiedName(name, t.Name)] = b
			}
		}
		if !m.HasResources(name) {
			continue
		}
		ev.Resources[name] = marshalList(m.allResources(ctx, name))
		ev.ResourceTemplates[name] = marshalList(m.allTemplates(ctx, name))
	}
	return ev
}

func marshalList[T any](items []T) json.RawMessage {
	if items == nil {
		items = []T{}
	}
	b, err := json.Marshal(items)
	if err != nil {
		return json.RawMessage("[]")
	}
	return b
}

// maxPages bounds the pages read from one server, against a server whose cursor never ends.
const maxPages = 100

func (m *Manager) allResources(ctx context.Context, server string) []*sdk.Resource {
	var out []*sdk.Resource
	cursor := ""
	for range maxPages {
		res, err := m.ListResources(ctx, server, cursor)
		if err != nil {
			break
		}
		out = append(out, res.Resources...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return out
}

func (m *Manager) allTemplates(ctx context.Context, server string) []*sdk.ResourceTemplate {
	var out []*sdk.ResourceTemplate
	cursor := ""
	for range maxPages {
		res, err := m.ListResourceTemplates(ctx, server, cursor)
		if err != nil {
			break
		}
		out = append(out, res.ResourceTemplates...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return out
}
