package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The app-server's MCP methods through the built binary over stdio, against the go-sdk test
// server (stdio and streamable HTTP) and a server whose command does not exist. Every frame
// is checked against Codex's schema by the client.

// startupStatuses reads n mcpServer/startupStatus/updated notifications of thread id as
// "server:status[:error]", skipping other notifications.
func (c *asClient) startupStatuses(id string, n int) []string {
	c.t.Helper()
	var out []string
	timeout := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case m := <-c.msgs:
			if m.Method != "mcpServer/startupStatus/updated" {
				continue
			}
			p := params(m)
			if p["threadId"] != id {
				c.t.Errorf("startup status of thread %v, want %s", p["threadId"], id)
			}
			s := fmt.Sprintf("%s:%s", p["name"], p["status"])
			if e, ok := p["error"].(string); ok {
				s += ":" + e
			}
			out = append(out, s)
		case <-timeout:
			c.t.Fatalf("startup statuses: got %v, want %d", out, n)
		}
	}
	return out
}

// serverSummaries reduces an mcpServerStatus/list page to one line per server.
func serverSummaries(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var page struct {
		Data []struct {
			Name          string                     `json:"name"`
			RuntimeStatus *string                    `json:"runtimeStatus"`
			HTTPOrigin    *string                    `json:"httpOrigin"`
			Tools         map[string]json.RawMessage `json:"tools"`
			ToolsError    *string                    `json:"toolsError"`
			Resources     []json.RawMessage          `json:"resources"`
			AuthStatus    string                     `json:"authStatus"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range page.Data {
		s := fmt.Sprintf("%s runtime=%s auth=%s tools=%d resources=%d", d.Name, deref(d.RuntimeStatus), d.AuthStatus, len(d.Tools), len(d.Resources))
		if d.HTTPOrigin != nil {
			s += " origin=" + strings.Split(*d.HTTPOrigin, ":")[0] // the port changes
		}
		if d.ToolsError != nil {
			s += " error=" + *d.ToolsError
		}
		out = append(out, s)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func TestAppServerMcpMethods(t *testing.T) {
	e := appServerEnv(t, "never")
	bin := mcpTestServer(t)
	url := startHTTPTestServer(t, "-require-header", "Authorization=Bearer tok123")
	e.ExtraEnv = append(e.ExtraEnv, "MCP_TOKEN=tok123")
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.good]\ncommand = %q\n\n[mcp_servers.bad]\ncommand = %q\n\n[mcp_servers.web]\nurl = %q\nbearer_token_env_var = \"MCP_TOKEN\"\n",
		bin, filepath.Join(e.Workdir, "missing-server"), url))
	c, _ := e.startAppServer()

	const missing = "MCP startup failed: No such file or directory (os error 2)"
	res, _ := c.call("mcpServerStatus/list", map[string]any{})
	want := []string{
		"bad runtime=null auth=unsupported tools=0 resources=0 error=" + missing,
		"good runtime=null auth=unsupported tools=11 resources=1",
		"web runtime=null auth=bearerToken tools=11 resources=1 origin=http",
	}
	if diff := cmp.Diff(want, serverSummaries(t, res)); diff != "" {
		t.Errorf("status before any thread (-want +got):\n%s", diff)
	}

	id := c.startThread(map[string]any{"cwd": e.Workdir})
	got := c.startupStatuses(id, 6)
	if diff := cmp.Diff([]string{"bad:starting", "good:starting", "web:starting"}, got[:3]); diff != "" {
		t.Errorf("starting (-want +got):\n%s", diff)
	}
	outcomes := append([]string(nil), got[3:]...)
	sort.Strings(outcomes)
	if diff := cmp.Diff([]string{"bad:failed:MCP client for `bad` failed to start: " + missing, "good:ready", "web:ready"}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}

	res, _ = c.call("mcpServerStatus/list", map[string]any{"threadId": id, "detail": "toolsAndAuthOnly"})
	want = []string{
		"bad runtime=failed auth=unsupported tools=0 resources=0 error=" + missing,
		"good runtime=connected auth=unsupported tools=11 resources=0",
		"web runtime=connected auth=bearerToken tools=11 resources=0 origin=http",
	}
	if diff := cmp.Diff(want, serverSummaries(t, res)); diff != "" {
		t.Errorf("status of the thread (-want +got):\n%s", diff)
	}

	var call map[string]any
	c.mustCall("mcpServer/tool/call", map[string]any{"threadId": id, "server": "web", "tool": "add", "arguments": map[string]any{"a": 2, "b": 3}}, &call)
	if diff := cmp.Diff(map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"sum":5}`}}, "structuredContent": map[string]any{"sum": 5.0}}, call); diff != "" {
		t.Errorf("tool call (-want +got):\n%s", diff)
	}
	if _, e := c.call("mcpServer/tool/call", map[string]any{"threadId": id, "server": "bad", "tool": "echo"}); e == nil || e.Error.Message != "failed to get client: "+missing {
		t.Errorf("call on the failed server: %+v", e)
	}

	var read map[string]any
	c.mustCall("mcpServer/resource/read", map[string]any{"threadId": id, "server": "good", "uri": "test://readme"}, &read)
	if diff := cmp.Diff(map[string]any{"contents": []any{map[string]any{"uri": "test://readme", "mimeType": "text/plain", "text": "read me"}}, "originCallId": nil}, read); diff != "" {
		t.Errorf("resource read (-want +got):\n%s", diff)
	}

	// A server added to config.toml: the reload restarts the thread's servers with it.
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.added]\ncommand = %q\nargs = [\"-name\", \"added\"]\n", bin))
	c.mustCall("config/mcpServer/reload", nil, nil)
	got = c.startupStatuses(id, 8)
	if diff := cmp.Diff([]string{"added:starting", "bad:starting", "good:starting", "web:starting"}, got[:4]); diff != "" {
		t.Errorf("starting after reload (-want +got):\n%s", diff)
	}
	res, _ = c.call("mcpServerStatus/list", map[string]any{"threadId": id, "serverName": "added", "detail": "toolsAndAuthOnly"})
	if diff := cmp.Diff([]string{"added runtime=connected auth=unsupported tools=11 resources=0"}, serverSummaries(t, res)); diff != "" {
		t.Errorf("added server (-want +got):\n%s", diff)
	}
	c.mustCall("mcpServer/tool/call", map[string]any{"threadId": id, "server": "added", "tool": "echo", "arguments": map[string]any{"text": "new"}}, &call)
	if fmt.Sprint(call["content"]) != "[map[text:echo: new type:text]]" {
		t.Errorf("call on the added server: %v", call)
	}
}
