package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// The resource tools' names.
const (
	NameListResources         = "list_mcp_resources"
	NameListResourceTemplates = "list_mcp_resource_templates"
	NameReadResource          = "read_mcp_resource"
)

// The specs Codex 0.169 sends for the resource tools.
const (
	listResourcesSpec = `{"type":"function","name":"list_mcp_resources","description":"Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.","strict":false,"parameters":{"type":"object","properties":{"cursor":{"type":"string","description":"Opaque cursor from a previous list_mcp_resources call; omit for the first page."},"server":{"type":"string","description":"MCP server name. Omit to list resources from every configured server."}},"additionalProperties":false}}`
	listTemplatesSpec = `{"type":"function","name":"list_mcp_resource_templates","description":"Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.","strict":false,"parameters":{"type":"object","properties":{"cursor":{"type":"string","description":"Opaque cursor from a previous list_mcp_resource_templates call; omit for the first page."},"server":{"type":"string","description":"MCP server name. Omit to list resource templates from every configured server."}},"additionalProperties":false}}`
	readResourceSpec  = `{"type":"function","name":"read_mcp_resource","description":"Read a specific resource from an MCP server given the server name and resource URI.","strict":false,"parameters":{"type":"object","properties":{"server":{"type":"string","description":"MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."},"uri":{"type":"string","description":"Resource URI to read. Must be one of the URIs returned by list_mcp_resources."}},"required":["server","uri"],"additionalProperties":false}}`
)

// resourceTool is one of the three resource tools; run produces the JSON answer.
type resourceTool struct {
	m    Manager
	opts Options
	spec string
	name string
	run  func(ctx context.Context, m Manager, a resourceArgs) (json.RawMessage, error)
}

type resourceArgs struct {
	Server string `json:"server"`
	Cursor string `json:"cursor"`
	URI    string `json:"uri"`
}

func resourceHandlers(m Manager, opts Options) []tool.Handler {
	return []tool.Handler{
		&resourceTool{m: m, opts: opts, spec: listResourcesSpec, name: NameListResources, run: listResources},
		&resourceTool{m: m, opts: opts, spec: listTemplatesSpec, name: NameListResourceTemplates, run: listTemplates},
		&resourceTool{m: m, opts: opts, spec: readResourceSpec, name: NameReadResource, run: readResource},
	}
}

// NewResourceHandlers returns the three resource tools.
func NewResourceHandlers(m Manager, opts Options) []tool.Handler { return resourceHandlers(m, opts) }

func (r *resourceTool) Spec() tool.Spec { return tool.Spec(r.spec) }

// SupportsParallel: listing and reading resources changes nothing.
func (r *resourceTool) SupportsParallel() bool { return true }

// Handle runs the tool. Like Codex, the call is reported as an MCP call of the named server
// (or of "codex" when it spans every server) with the JSON answer as its text content; an
// argument or server error goes back to the model without events.
func (r *resourceTool) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	var a resourceArgs
	rawArgs := json.RawMessage("{}")
	if len(bytes.TrimSpace([]byte(call.Arguments))) > 0 {
		if err := json.Unmarshal([]byte(call.Arguments), &a); err != nil {
			return tool.Result{Output: fmt.Sprintf("failed to parse function arguments: %v", err)}, nil
		}
		var c bytes.Buffer
		if json.Compact(&c, []byte(call.Arguments)) == nil {
			rawArgs = c.Bytes()
		}
	}
	if a.Server != "" && !contains(r.m.Names(), a.Server) {
		return tool.Result{Output: fmt.Sprintf("unknown MCP server '%s'", a.Server)}, nil
	}
	if r.name == NameReadResource && (a.Server == "" || a.URI == "") {
		return tool.Result{Output: "read_mcp_resource requires both server and uri"}, nil
	}
	server := a.Server
	if server == "" {
		server = "codex"
	}
	inv := protocol.McpInvocation{Server: server, Tool: r.name, Arguments: rawArgs}
	start := r.opts.now()
	emit(env, protocol.McpToolCallBeginEvent{CallID: call.CallID, Invocation: inv})
	out, err := r.run(ctx, r.m, a)
	if err != nil && ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	ev := protocol.McpToolCallEndEvent{CallID: call.CallID, Invocation: inv, Duration: protocol.Duration(r.opts.now().Sub(start))}
	if err != nil {
		msg := err.Error()
		ev.Result.Err = &msg
		emit(env, ev)
		return tool.Result{Output: msg}, nil
	}
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	content, _ := json.Marshal(struct {
		Content []text `json:"content"`
	}{[]text{{"text", string(out)}}})
	ev.Result.Ok = content
	emit(env, ev)
	return tool.Result{Output: string(out), Success: true}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The member order Codex writes resources and templates in (the go-sdk sorts its fields
// alphabetically); members not named here follow in alphabetical order.
var (
	resourceOrder = []string{"uri", "name", "title", "description", "mimeType", "size", "icons", "annotations", "_meta"}
	templateOrder = []string{"uriTemplate", "name", "title", "description", "mimeType", "icons", "annotations", "_meta"}
)

// withServer writes v as a JSON object with "server" as its first member and the others in
// order.
func withServer(server string, v any, order []string) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"server":`)
	writeJSON(&buf, server)
	write := func(k string) {
		if v, ok := m[k]; ok {
			buf.WriteByte(',')
			writeJSON(&buf, k)
			buf.WriteByte(':')
			buf.Write(v)
			delete(m, k)
		}
	}
	for _, k := range order {
		write(k)
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// page is the answer of the list tools: {"server"?, "<key>": [...], "nextCursor"?}.
func page(server, key string, items []json.RawMessage, next string) (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	if server != "" {
		buf.WriteString(`"server":`)
		writeJSON(&buf, server)
		buf.WriteByte(',')
	}
	writeJSON(&buf, key)
	buf.WriteString(":[")
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(it)
	}
	buf.WriteByte(']')
	if next != "" {
		buf.WriteString(`,"nextCursor":`)
		writeJSON(&buf, next)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

var errCursorNeedsServer = errors.New("cursor can only be used when a server is specified")

func listResources(ctx context.Context, m Manager, a resourceArgs) (json.RawMessage, error) {
	return listAcross(ctx, m, a, "resources/list", "resources", resourceOrder,
		func(server string) ([]*sdk.Resource, string, error) {
			res, err := m.ListResources(ctx, server, a.Cursor)
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		})
}

func listTemplates(ctx context.Context, m Manager, a resourceArgs) (json.RawMessage, error) {
	return listAcross(ctx, m, a, "resources/templates/list", "resourceTemplates", templateOrder,
		func(server string) ([]*sdk.ResourceTemplate, string, error) {
			res, err := m.ListResourceTemplates(ctx, server, a.Cursor)
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
}

// listAcross lists one kind of entry from the named server, or from every server that
// started when none is named (a server that failed is skipped then, not an error); each
// entry is tagged with its server.
func listAcross[T any](ctx context.Context, m Manager, a resourceArgs, method, key string, order []string,
	fetch func(server string) ([]T, string, error)) (json.RawMessage, error) {
	if a.Server == "" && a.Cursor != "" {
		return nil, errCursorNeedsServer
	}
	servers := []string{a.Server}
	if a.Server == "" {
		servers = m.Names()
	}
	var items []json.RawMessage
	next := ""
	for _, s := range servers {
		if _, err := m.Tools(ctx, s); err != nil && a.Server == "" {
			continue // a server that did not start has nothing to list
		}
		entries, cursor, err := fetch(s)
		if err != nil {
			if a.Server == "" {
				continue
			}
			return nil, fmt.Errorf("%s failed: %w", method, err)
		}
		for _, e := range entries {
			b, err := withServer(s, e, order)
			if err != nil {
				return nil, err
			}
			items = append(items, b)
		}
		next = cursor
	}
	return page(a.Server, key, items, next)
}

func readResource(ctx context.Context, m Manager, a resourceArgs) (json.RawMessage, error) {
	if _, err := m.Tools(ctx, a.Server); err != nil {
		return nil, err
	}
	res, err := m.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		return nil, fmt.Errorf("resources/read failed: %w", err)
	}
	body, err := json.Marshal(readResult(res))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"server":`)
	writeJSON(&buf, a.Server)
	buf.WriteString(`,"uri":`)
	writeJSON(&buf, a.URI)
	if rest := bytes.TrimPrefix(body, []byte("{")); len(rest) > 1 {
		buf.WriteByte(',')
		buf.Write(rest)
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// readResult drops the caching members a server did not send (the go-sdk writes them
// always; servers of earlier protocol revisions know nothing of them).
func readResult(res *sdk.ReadResourceResult) any {
	if res.CacheScope != "" {
		return res
	}
	return struct {
		Meta     sdk.Meta                `json:"_meta,omitempty"`
		Contents []*sdk.ResourceContents `json:"contents"`
	}{res.Meta, res.Contents}
}
