package appserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// The MCP methods: server status (mcpServerStatus/list), direct tool calls and resource
// reads (mcpServer/tool/call, mcpServer/resource/read) and config/mcpServer/reload. With a
// thread id they use that thread's running servers (internal/app's McpHost); without one
// the servers of the current config.toml are started for the request and stopped after it,
// as Codex does. The thread's startup progress reaches clients as
// mcpServer/startupStatus/updated through the thread projection (internal/items).

// defaultMcpStatusPage is the page size of mcpServerStatus/list without a limit.
const defaultMcpStatusPage = 100

// McpServerStatusList answers mcpServerStatus/list.
func (a *api) McpServerStatusList(ctx context.Context, c *Conn, p ListMcpServerStatusParams) (ListMcpServerStatusResponse, error) {
	return a.r.mcpStatusList(ctx, c, p)
}

// McpServerToolCall answers mcpServer/tool/call.
func (a *api) McpServerToolCall(ctx context.Context, c *Conn, p McpServerToolCallParams) (mcpToolCallResponse, error) {
	return a.r.mcpToolCall(ctx, c, p)
}

// McpServerResourceRead answers mcpServer/resource/read.
func (a *api) McpServerResourceRead(ctx context.Context, c *Conn, p McpResourceReadParams) (McpResourceReadResponse, error) {
	return a.r.mcpResourceRead(ctx, c, p)
}

// ConfigMcpServerReload answers config/mcpServer/reload.
func (a *api) ConfigMcpServerReload(ctx context.Context, c *Conn) (McpServerRefreshResponse, error) {
	_, err := a.r.mcpReload(ctx, c, struct{}{})
	return McpServerRefreshResponse{}, err
}

// mcpServerStatus is the v2 McpServerStatus object.
type mcpServerStatus struct {
	Name string `json:"name"`
	// EnvironmentID (Codex 0.171) is null for a server of the local environment, the only
	// one gocodex runs servers in.
	EnvironmentID      *string                 `json:"environmentId"`
	RuntimeStatus      *string                 `json:"runtimeStatus"`
	PluginID           *string                 `json:"pluginId"`
	HTTPOrigin         *string                 `json:"httpOrigin"`
	ServerInfo         *mcpServerInfo          `json:"serverInfo"`
	ServerCapabilities any                     `json:"serverCapabilities"`
	ToolListMeta       any                     `json:"toolListMeta"`
	Tools              map[string]*sdk.Tool    `json:"tools"`
	ToolsError         *string                 `json:"toolsError"`
	Resources          []*sdk.Resource         `json:"resources"`
	ResourceTemplates  []*sdk.ResourceTemplate `json:"resourceTemplates"`
	AuthStatus         string                  `json:"authStatus"`
}

type mcpServerInfo struct {
	Name        string     `json:"name"`
	Title       *string    `json:"title"`
	Version     string     `json:"version"`
	Description *string    `json:"description"`
	Icons       []sdk.Icon `json:"icons"`
	WebsiteURL  *string    `json:"websiteUrl"`
}

// mcpSource is where a request's servers come from: a thread's host, or servers started
// for the request (done stops them).
type mcpSource struct {
	mgr     *app.McpHost
	runtime bool // a thread's servers: runtimeStatus is reported
	done    func()
}

// mcpServers returns the servers a request addresses. only, when set, limits a temporary
// start to that server.
func (r *threads) mcpServers(threadID *string, only string) (mcpSource, error) {
	if threadID != nil {
		lt, err := r.loadedMcpThread(*threadID)
		if err != nil {
			return mcpSource{}, err
		}
		if lt.app != nil {
			if h, ok := lt.app.McpHost(lt.id); ok {
				return mcpSource{mgr: h, runtime: true, done: func() {}}, nil
			}
		}
		// A thread without MCP servers: what config.toml configures now.
	}
	cfg, err := r.srv.loadThreadConfig(threadOverrides{})
	if err != nil {
		return mcpSource{}, err
	}
	servers := cfg.McpServers
	if only != "" {
		servers = map[string]config.McpServerConfig{}
		if c, ok := cfg.McpServers[only]; ok {
			servers[only] = c
		}
	}
	m := app.StartMcpServers(servers, r.srv.opts.Getenv, r.srv.opts.HTTPClient, r.srv.logger)
	return mcpSource{mgr: m, done: func() { _ = m.Close() }}, nil
}

// loadedMcpThread finds a loaded thread, answering as Codex does for a malformed or unknown
// id.
func (r *threads) loadedMcpThread(id string) (*loadedThread, error) {
	if lt, ok := r.get(id); ok {
		return lt, nil
	}
	if _, err := uuid.Parse(id); err != nil {
		return nil, InvalidRequest("invalid thread id: " + err.Error())
	}
	return nil, errNoThread(id)
}

func (r *threads) mcpStatusList(ctx context.Context, c *Conn, p ListMcpServerStatusParams) (ListMcpServerStatusResponse, error) {
	if p.EnvironmentID != nil { // Codex 0.171's environment registrations
		if p.ServerName == nil || p.ThreadID == nil {
			return ListMcpServerStatusResponse{}, InvalidRequest("environmentId requires serverName and threadId")
		}
		return ListMcpServerStatusResponse{}, errNoEnvironment(*p.EnvironmentID)
	}
	only := ""
	if p.ServerName != nil {
		only = *p.ServerName
	}
	src, err := r.mcpServers(p.ThreadID, only)
	if err != nil {
		return ListMcpServerStatusResponse{}, err
	}
	defer src.done()
	names := src.mgr.Names()
	if only != "" {
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n != only })
	}
	start, end, next, err := mcpPage(len(names), p.Cursor, p.Limit)
	if err != nil {
		return ListMcpServerStatusResponse{}, err
	}
	full := p.Detail == nil || *p.Detail != "toolsAndAuthOnly"
	out := ListMcpServerStatusResponse{Data: make([]mcpServerStatus, end-start), NextCursor: next}
	var wg sync.WaitGroup
	for i, name := range names[start:end] {
		wg.Go(func() { out.Data[i] = mcpStatusOf(ctx, src, name, full) })
	}
	wg.Wait()
	return out, nil
}

// mcpPage reads the cursor (the index of the next server) and the limit.
func mcpPage(total int, cursor *string, limit *uint32) (start, end int, next *string, err error) {
	if cursor != nil {
		n, perr := strconv.Atoi(*cursor)
		if perr != nil || n < 0 {
			return 0, 0, nil, InvalidRequest("invalid cursor: " + *cursor)
		}
		if n > total {
			return 0, 0, nil, InvalidRequest(fmt.Sprintf("cursor %d exceeds total MCP servers %d", n, total))
		}
		start = n
	}
	size := defaultMcpStatusPage
	if limit != nil {
		size = max(int(*limit), 1)
	}
	end = min(start+size, total)
	if end < total {
		s := strconv.Itoa(end)
		next = &s
	}
	return start, end, next, nil
}

// mcpStatusOf describes one server; a temporary start is waited for (within the server's
// startup timeout), a thread's server is reported as it is now.
func mcpStatusOf(ctx context.Context, src mcpSource, name string, full bool) mcpServerStatus {
	if !src.runtime {
		_, _ = src.mgr.Tools(ctx, name)
	}
	st, _ := src.mgr.Status(name)
	out := mcpServerStatus{Name: name, Tools: map[string]*sdk.Tool{}, Resources: []*sdk.Resource{},
		ResourceTemplates: []*sdk.ResourceTemplate{}, AuthStatus: "unsupported"}
	if src.runtime {
		rs := runtimeStatus(st)
		out.RuntimeStatus = &rs
	}
	if st.HTTP {
		out.HTTPOrigin = httpOrigin(st.URL)
		if st.BearerToken {
			out.AuthStatus = "bearerToken"
		}
	}
	if st.Failed && st.Err != nil {
		msg := startupErrorText(st.Err)
		out.ToolsError = &msg
	}
	if st.Init != nil {
		out.ServerInfo = serverInfoOf(st.Init.ServerInfo)
		if st.Init.Capabilities != nil {
			out.ServerCapabilities = st.Init.Capabilities
		}
	}
	for _, t := range st.Tools {
		out.Tools[t.Name] = t
	}
	if full && st.Ready && st.Init != nil && st.Init.Capabilities != nil && st.Init.Capabilities.Resources != nil {
		out.Resources = allMcpPages(ctx, func(cursor string) ([]*sdk.Resource, string, error) {
			res, err := src.mgr.ListResources(ctx, name, cursor)
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		})
		out.ResourceTemplates = allMcpPages(ctx, func(cursor string) ([]*sdk.ResourceTemplate, string, error) {
			res, err := src.mgr.ListResourceTemplates(ctx, name, cursor)
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
	}
	return out
}

// allMcpPages follows a listing's cursors; a failing listing shows what came before.
func allMcpPages[T any](ctx context.Context, page func(cursor string) ([]T, string, error)) []T {
	out := []T{}
	cursor := ""
	for range 100 { // a server that never ends its listing is cut off
		items, next, err := page(cursor)
		if err != nil || ctx.Err() != nil {
			break
		}
		out = append(out, items...)
		if next == "" {
			break
		}
		cursor = next
	}
	return out
}

func runtimeStatus(st app.McpServerStatus) string {
	switch {
	case st.Ready:
		return "connected"
	case st.Failed:
		return "failed"
	case st.Cancelled:
		return "cancelled"
	}
	return "starting"
}

// startupErrorText words a startup failure as Codex's toolsError does.
func startupErrorText(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "MCP ") {
		return msg
	}
	return "MCP startup failed: " + msg
}

// httpOrigin is scheme://host[:port] of an endpoint, without credentials or path.
func httpOrigin(raw string) *string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil
	}
	o := u.Scheme + "://" + u.Host
	return &o
}

func serverInfoOf(impl *sdk.Implementation) *mcpServerInfo {
	if impl == nil {
		return nil
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return &mcpServerInfo{Name: impl.Name, Title: opt(impl.Title), Version: impl.Version,
		Description: opt(impl.Description), Icons: impl.Icons, WebsiteURL: opt(impl.WebsiteURL)}
}

// mcpToolCallResponse is a CallToolResult in Codex's field order.
type mcpToolCallResponse struct {
	Content           []sdk.Content `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           *bool         `json:"isError,omitempty"`
	Meta              sdk.Meta      `json:"_meta,omitempty"`
}

func (r *threads) mcpToolCall(ctx context.Context, c *Conn, p McpServerToolCallParams) (mcpToolCallResponse, error) {
	lt, err := r.loadedMcpThread(p.ThreadID)
	if err != nil {
		return mcpToolCallResponse{}, err
	}
	if p.EnvironmentID != nil {
		return mcpToolCallResponse{}, errNoEnvironment(*p.EnvironmentID)
	}
	var m *app.McpHost
	if lt.app != nil {
		if h, ok := lt.app.McpHost(lt.id); ok {
			m = h
		}
	}
	if m == nil {
		return mcpToolCallResponse{}, internalError(app.UnknownMcpServer(p.Server).Error())
	}
	if err := mcpReadyServer(ctx, m, p.Server); err != nil {
		return mcpToolCallResponse{}, err
	}
	st, _ := m.Status(p.Server)
	if !slices.ContainsFunc(st.Tools, func(t *sdk.Tool) bool { return t.Name == p.Tool }) {
		return mcpToolCallResponse{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Tool)} // without the "Invalid params: " prefix, as Codex words it
	}
	var args map[string]any
	if a := strings.TrimSpace(string(p.Arguments)); a != "" && a != "null" {
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args == nil {
			return mcpToolCallResponse{}, internalError(fmt.Sprintf("tool call failed for `%s/%s`: MCP tool arguments must be a JSON object, got %s", p.Server, p.Tool, a))
		}
	}
	res, err := m.CallTool(ctx, p.Server, p.Tool, args)
	if err != nil {
		return mcpToolCallResponse{}, internalError(fmt.Sprintf("tool call failed for `%s/%s`: %v", p.Server, p.Tool, err))
	}
	out := mcpToolCallResponse{Content: res.Content, StructuredContent: res.StructuredContent, Meta: res.Meta}
	if out.Content == nil {
		out.Content = []sdk.Content{}
	}
	if res.IsError {
		out.IsError = &res.IsError
	}
	return out, nil
}

// mcpReadyServer waits for a server's startup and answers as Codex does for an unknown
// server or one that failed to start.
func mcpReadyServer(ctx context.Context, m *app.McpHost, name string) error {
	_, err := m.Tools(ctx, name)
	if err == nil {
		return nil
	}
	if app.IsUnknownMcpServer(err) {
		return internalError(err.Error())
	}
	if st, ok := m.Status(name); ok && st.Err != nil {
		err = st.Err
		return internalError("failed to get client: " + startupErrorText(err))
	}
	return internalError("failed to get client: " + err.Error())
}

type mcpResourceContent struct {
	URI      string   `json:"uri"`
	MIMEType string   `json:"mimeType,omitempty"`
	Text     *string  `json:"text,omitempty"`
	Blob     *string  `json:"blob,omitempty"`
	Meta     sdk.Meta `json:"_meta,omitempty"`
}

func (r *threads) mcpResourceRead(ctx context.Context, c *Conn, p McpResourceReadParams) (McpResourceReadResponse, error) {
	src, err := r.mcpServers(p.ThreadID, p.Server)
	if err != nil {
		return McpResourceReadResponse{}, err
	}
	if p.EnvironmentID != nil {
		return McpResourceReadResponse{}, errNoEnvironment(*p.EnvironmentID)
	}
	defer src.done()
	if err := mcpReadyServer(ctx, src.mgr, p.Server); err != nil {
		return McpResourceReadResponse{}, err
	}
	res, err := src.mgr.ReadResource(ctx, p.Server, p.URI)
	if err != nil {
		// The server's own JSON-RPC error goes back as it is (e.g. -32602 "Resource not found").
		var we *sdkrpc.Error
		if errors.As(err, &we) {
			return McpResourceReadResponse{}, &jsonrpc.Error{Code: we.Code, Message: we.Message, Data: we.Data}
		}
		return McpResourceReadResponse{}, internalError(err.Error())
	}
	out := McpResourceReadResponse{Contents: []mcpResourceContent{}}
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		e := mcpResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Meta: rc.Meta}
		if rc.Blob != nil {
			b := base64.StdEncoding.EncodeToString(rc.Blob)
			e.Blob = &b
		} else {
			t := rc.Text
			e.Text = &t
		}
		out.Contents = append(out.Contents, e)
	}
	return out, nil
}

// mcpReload restarts the MCP servers of every loaded thread from the current config.toml
// (reloaded with the thread's cwd); the threads report the restart as
// mcpServer/startupStatus/updated. Requests without a thread read config.toml anyway.
func (r *threads) mcpReload(ctx context.Context, c *Conn, _ struct{}) (empty, error) {
	type reload struct {
		host interface {
			Reload(map[string]config.McpServerConfig)
		}
		servers map[string]config.McpServerConfig
	}
	var todo []reload
	for _, lt := range r.list() {
		if lt.app == nil {
			continue
		}
		h, ok := lt.app.McpHost(lt.id)
		if !ok {
			continue
		}
		cwd := lt.cfg.Cwd
		cfg, err := r.srv.loadThreadConfig(threadOverrides{Cwd: &cwd})
		if err != nil {
			return empty{}, err
		}
		todo = append(todo, reload{h, maps.Clone(cfg.McpServers)})
	}
	var wg sync.WaitGroup
	for _, t := range todo {
		wg.Go(func() { t.host.Reload(t.servers) })
	}
	wg.Wait()
	return empty{}, nil
}

// errNoEnvironment refuses an MCP request for a named environment (Codex 0.171's
// environmentId): gocodex runs every MCP server in the local environment, so none other
// can be served, and answering from the local one would be another server's answer.
func errNoEnvironment(id string) error {
	return InvalidRequest("gocodex has no environment `" + id + "`: its MCP servers run in the local environment")
}
