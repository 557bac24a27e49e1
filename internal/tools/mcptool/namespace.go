// Package mcptool offers the tools of MCP servers to the model: one `namespace` tool per
// server (`mcp__<server>`, its tools inside by sanitised name) and the resource tools
// list_mcp_resources, list_mcp_resource_templates and read_mcp_resource. Calls emit
// mcp_tool_call_begin/end and answer the model in Codex 0.169's format.
package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/mcp"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// Manager is what the handlers need from the MCP client manager (*mcp.Manager).
type Manager interface {
	Names() []string
	// Tools waits for the server's startup to settle (within its startup timeout).
	Tools(ctx context.Context, server string) ([]*sdk.Tool, error)
	// Instructions are the server's own instructions (initialize result), "" when none.
	Instructions(server string) string
	CallTool(ctx context.Context, server, tool string, args map[string]any) (*sdk.CallToolResult, error)
	ListResources(ctx context.Context, server, cursor string) (*sdk.ListResourcesResult, error)
	ListResourceTemplates(ctx context.Context, server, cursor string) (*sdk.ListResourceTemplatesResult, error)
	ReadResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error)
}

// Options are shared by the handlers.
type Options struct {
	// Now is the clock for durations; nil means time.Now.
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Handlers returns the tools for every server of m: the three resource tools (offered
// whenever a server is configured, as Codex does), then one namespace handler per server.
func Handlers(m Manager, opts Options) []tool.Handler {
	names := m.Names()
	if len(names) == 0 {
		return nil
	}
	// Codex sends the resource tools before the namespaces.
	hs := resourceHandlers(m, opts)
	for _, name := range names {
		hs = append(hs, &Namespace{m: m, server: name, opts: opts})
	}
	return hs
}

// Namespace is the handler of one server's namespace tool.
type Namespace struct {
	m        Manager
	server   string
	opts     Options
	approved sessionApprovals
}

// NewNamespace returns the namespace handler of one server.
func NewNamespace(m Manager, server string, opts Options) *Namespace {
	return &Namespace{m: m, server: server, opts: opts}
}

// Spec waits for the server to settle (never past its startup timeout) and returns the
// namespace with its tools. A server that is not ready, or has no tools, gives a spec
// without a name, which the registry declines to offer; it is offered again from the turn
// after it comes up.
func (n *Namespace) Spec() tool.Spec {
	list, err := n.m.Tools(context.Background(), n.server)
	if err != nil || len(list) == 0 {
		return tool.Spec(`{"type":"namespace"}`)
	}
	name := mcp.NamespaceName(n.server)
	var buf bytes.Buffer
	buf.WriteString(`{"type":"namespace","name":`)
	writeJSON(&buf, name)
	// The server's instructions describe its namespace, as Codex sends them.
	desc := n.m.Instructions(n.server)
	if desc == "" {
		desc = "Tools in the " + name + " namespace."
	}
	buf.WriteString(`,"description":`)
	writeJSON(&buf, desc)
	buf.WriteString(`,"tools":[`)
	for i, t := range list {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"type":"function","name":`)
		writeJSON(&buf, mcp.ToolName(t.Name))
		buf.WriteString(`,"description":`)
		writeJSON(&buf, t.Description)
		buf.WriteString(`,"strict":false,"parameters":`)
		buf.Write(sanitizeSchema(t.InputSchema))
		buf.WriteByte('}')
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}

// SupportsParallel lets calls run beside other parallel calls when the server's config says
// it can take them (supports_parallel_tool_calls).
func (n *Namespace) SupportsParallel() bool {
	p, ok := n.m.(interface{ SupportsParallel(string) bool })
	return ok && p.SupportsParallel(n.server)
}

// Handle runs one call of a tool in the namespace.
func (n *Namespace) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	list, err := n.m.Tools(ctx, n.server)
	var sdkTool *sdk.Tool
	if err == nil {
		for _, t := range list {
			if mcp.ToolName(t.Name) == call.Name {
				sdkTool = t
				break
			}
		}
	}
	if sdkTool == nil {
		// Codex names the namespace and the tool run together here.
		return tool.Result{Output: "unsupported call: " + call.Namespace + call.Name}, nil
	}
	args, rawArgs, perr := parseArgs(call.Arguments)
	if perr != nil {
		return tool.Result{Output: fmt.Sprintf("failed to parse function arguments: %v", perr)}, nil
	}
	inv := protocol.McpInvocation{Server: n.server, Tool: sdkTool.Name, Arguments: rawArgs}
	start := n.opts.now()
	emit(env, protocol.McpToolCallBeginEvent{CallID: call.CallID, Invocation: inv})

	end := func(res *sdk.CallToolResult, callErr string) tool.Result {
		d := n.opts.now().Sub(start)
		ev := protocol.McpToolCallEndEvent{CallID: call.CallID, Invocation: inv, Duration: protocol.Duration(d)}
		if res != nil {
			b, merr := json.Marshal(res)
			if merr != nil {
				callErr, res = merr.Error(), nil
			} else {
				ev.Result.Ok = b
			}
		}
		if res == nil {
			ev.Result.Err = &callErr
		}
		emit(env, ev)
		return modelOutput(d, res, callErr)
	}

	decision, derr := n.approve(ctx, env, call, sdkTool)
	if derr != nil {
		// Every begin gets its end, even when the turn is going away.
		r := end(nil, derr.Error())
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return r, nil
	}
	switch decision {
	case denyNever:
		return end(nil, "MCP tool call requires approval, but approval policy is never"), nil
	case denyUser:
		return end(nil, "user rejected MCP tool call"), nil
	case abort:
		r := end(nil, "user cancelled MCP tool call")
		r.EndTurn = true
		return r, nil
	}

	res, cerr := n.m.CallTool(ctx, n.server, sdkTool.Name, args)
	if cerr != nil {
		if ctx.Err() != nil {
			end(nil, ctx.Err().Error())
			return tool.Result{}, ctx.Err()
		}
		return end(nil, fmt.Sprintf("tool call error: tool call failed for `%s/%s`\n\nCaused by:\n    %v", n.server, sdkTool.Name, cerr)), nil
	}
	return end(res, ""), nil
}

// parseArgs reads the call's JSON object; an empty string is no arguments.
func parseArgs(s string) (map[string]any, json.RawMessage, error) {
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return nil, json.RawMessage("null"), nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(s), &args); err != nil {
		return nil, nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(s)); err != nil {
		return nil, nil, err
	}
	return args, compact.Bytes(), nil
}

func emit(env *tool.Env, ev protocol.EventMsg) {
	if env != nil && env.Emit != nil {
		env.Emit(ev)
	}
}

// modelOutput is what the model receives, as Codex 0.169 words it: a wall-time header,
// then the structured content as JSON text when there is some, else the content blocks as
// content items (text and images); an error is one text item.
func modelOutput(d time.Duration, res *sdk.CallToolResult, callErr string) tool.Result {
	header := fmt.Sprintf("Wall time: %.4f seconds\nOutput:", d.Seconds())
	if res == nil {
		return tool.Result{ContentItems: []protocol.ContentItem{
			{Type: protocol.ContentInputText, Text: header},
			{Type: protocol.ContentInputText, Text: callErr},
		}}
	}
	success := !res.IsError
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil && string(b) != "null" {
			return tool.Result{Output: header + "\n" + string(b), Success: success}
		}
	}
	items := []protocol.ContentItem{{Type: protocol.ContentInputText, Text: header}}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			items = append(items, protocol.ContentItem{Type: protocol.ContentInputText, Text: c.Text})
		case *sdk.ImageContent:
			items = append(items, protocol.ContentItem{Type: protocol.ContentInputImage,
				ImageURL: "data:" + c.MIMEType + ";base64," + encodeBase64(c.Data)})
		default:
			b, err := json.Marshal(c)
			if err == nil {
				items = append(items, protocol.ContentItem{Type: protocol.ContentInputText, Text: string(b)})
			}
		}
	}
	return tool.Result{ContentItems: items, Success: success}
}
