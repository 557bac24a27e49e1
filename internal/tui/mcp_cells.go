package tui

import (
	"encoding/json"
	"strings"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// maxArgsWidth keeps a tool call's arguments to one readable line in its title.
const maxArgsWidth = 60

func (t *transcript) endMcp(id string, m *items.McpCall) {
	i, ok := t.calls[id]
	if !ok {
		i = t.add(cell{kind: cellTool})
	}
	delete(t.calls, id)
	c := &t.cells[i]
	c.open = false
	c.title = "Called " + invocationText(m.Invocation)
	c.failed = !m.Result.IsSuccess()
	if m.Result.Err != nil {
		c.body = *m.Result.Err
		return
	}
	c.body = resultText(m.Result.Ok)
}

// invocationText is server.tool(arguments), the arguments shortened to one line.
func invocationText(inv protocol.McpInvocation) string {
	args := strings.TrimSpace(string(inv.Arguments))
	if args == "null" || args == "{}" {
		args = ""
	}
	args = strings.Join(strings.Fields(args), " ")
	if r := []rune(args); len(r) > maxArgsWidth {
		args = string(r[:maxArgsWidth-1]) + "…"
	}
	return inv.Server + "." + inv.Tool + "(" + args + ")"
}

// resultText is the text content of an MCP CallToolResult; other content is named by type.
func resultText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, "<"+c.Type+" content>")
		}
	}
	return strings.Join(parts, "\n")
}

// mcpToolsText is /mcp's answer: each server with its auth status and its tools' names.
func mcpToolsText(ev protocol.McpListToolsResponseEvent) string { return mcpServersText(ev, false) }
