package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// mcpLoginTimeout bounds an MCP sign-in: the person has this long to finish in the browser.
const mcpLoginTimeout = 5 * time.Minute

// uiDoneMsg carries the end of a command that ran off the UI goroutine back into Update.
type uiDoneMsg func(m *Model) tea.Cmd

// mcpCommand is /mcp: the servers and their tools; `/mcp verbose` adds each tool's
// description and the resources; `/mcp login NAME` signs in to a server with OAuth.
func (m *Model) mcpCommand(typed, args string) {
	sub, rest, _ := strings.Cut(args, " ")
	switch sub {
	case "":
		m.listMcpTools(typed, args)
	case "verbose":
		m.ui.mcpVerbose = true
		m.listMcpTools(typed, args)
	case "login":
		m.mcpLogin(typed, strings.TrimSpace(rest))
	default:
		m.commandError(typed, "Usage: /mcp [verbose | login <name>]")
	}
}

func (m *Model) mcpLogin(typed, name string) {
	if name == "" || strings.Contains(name, " ") {
		m.commandError(typed, "Usage: /mcp login <name>")
		return
	}
	login := m.ui.host.McpLogin
	if login == nil {
		m.commandError(typed, "/mcp login is not available here: the host cannot sign in to MCP servers.")
		return
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.tr.add(cell{kind: cellInfo, body: "Signing in to MCP server '" + name + "'…"})
	m.refresh()
	send := m.ui.send
	out := lineWriter(func(line string) {
		if send != nil && strings.TrimSpace(line) != "" {
			send(uiDoneMsg(func(m *Model) tea.Cmd {
				m.tr.add(cell{kind: cellNote, body: line})
				m.refresh()
				return nil
			}))
		}
	})
	m.pending = func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), mcpLoginTimeout)
		defer cancel()
		_, err := guarded(func() (struct{}, error) { return struct{}{}, login(ctx, name, out) })
		return uiDoneMsg(func(m *Model) tea.Cmd {
			if err != nil {
				m.tr.add(cell{kind: cellError, body: "/mcp login " + name + ": " + err.Error()})
			} else {
				m.tr.add(cell{kind: cellNote, body: "Successfully logged in to MCP server '" + name + "'."})
			}
			m.refresh()
			return nil
		})
	}
}

// lineWriter hands each written line to f.
type lineWriter func(line string)

func (w lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w(line)
	}
	return len(p), nil
}

// mcpVerboseAnswer shows the answer to `/mcp verbose`; false when /mcp was plain.
func (m *Model) mcpVerboseAnswer(ev protocol.McpListToolsResponseEvent) bool {
	if !m.ui.mcpVerbose {
		return false
	}
	m.ui.mcpVerbose = false
	m.tr.add(cell{kind: cellCard, body: mcpServersText(ev, true)})
	m.refresh()
	return true
}

// mcpServersText is each server with its auth and its tools; verbose adds each tool's
// description, the resources and the resource templates (/mcp verbose).
func mcpServersText(ev protocol.McpListToolsResponseEvent, verbose bool) string {
	servers := make([]string, 0, len(ev.AuthStatuses))
	for s := range ev.AuthStatuses {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	if len(servers) == 0 {
		return "MCP Tools\n\nNo MCP servers configured. Add one under [mcp_servers.NAME] in config.toml."
	}
	lines := []string{"MCP Tools", ""}
	for _, s := range servers {
		var auth string
		json.Unmarshal(ev.AuthStatuses[s], &auth)
		lines = append(lines, "• "+s)
		if auth != "" {
			lines = append(lines, "    • Auth: "+auth)
		}
		prefix := "mcp__" + s + "__"
		var tools []string
		for q := range ev.Tools {
			if strings.HasPrefix(q, prefix) {
				tools = append(tools, q)
			}
		}
		sort.Strings(tools)
		switch {
		case len(tools) == 0:
			lines = append(lines, "    • Tools: (none)")
		case !verbose:
			names := make([]string, len(tools))
			for i, q := range tools {
				names[i] = strings.TrimPrefix(q, prefix)
			}
			lines = append(lines, "    • Tools: "+strings.Join(names, ", "))
			continue
		default:
			lines = append(lines, "    • Tools:")
		}
		if !verbose {
			continue
		}
		for _, q := range tools {
			var def struct {
				Description string `json:"description"`
			}
			json.Unmarshal(ev.Tools[q], &def)
			line := "        • " + strings.TrimPrefix(q, prefix)
			if d := strings.TrimSpace(def.Description); d != "" {
				line += ": " + strings.ReplaceAll(d, "\n", " ")
			}
			lines = append(lines, line)
		}
		lines = append(lines, "    • Resources: "+namesOf(ev.Resources[s], "uri"),
			"    • Resource templates: "+namesOf(ev.ResourceTemplates[s], "uriTemplate"))
	}
	return strings.Join(lines, "\n")
}

// namesOf lists the name (or the key field) of each entry of a JSON array; "(none)" when
// there are none.
func namesOf(raw json.RawMessage, key string) string {
	var list []map[string]any
	json.Unmarshal(raw, &list)
	var out []string
	for _, e := range list {
		name, _ := e["name"].(string)
		if name == "" {
			name, _ = e[key].(string)
		}
		if name == "" {
			name = fmt.Sprint(e[key])
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}
