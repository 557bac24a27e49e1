package appserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The MCP methods against the go-sdk test server of internal/mcp/testdata: "good" runs it
// over stdio, "bad" names a command that does not exist.

// buildMcpTestServer builds the test MCP server into dir.
func buildMcpTestServer(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mcp-testserver")
	build := exec.Command("go", "build", "-o", bin, "../mcp/testdata/testserver")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build MCP test server: %v\n%s", err, out)
	}
	return bin
}

// mcpWorld is a world whose config.toml has the servers good and bad.
func mcpWorld(t *testing.T) (*world, string) {
	t.Helper()
	w := newWorld(t, tk.ConfigOptions{})
	bin := buildMcpTestServer(t, t.TempDir())
	appendConfig(t, w.Home, fmt.Sprintf("[mcp_servers.good]\ncommand = %q\n\n[mcp_servers.bad]\ncommand = %q\n",
		bin, filepath.Join(w.Work, "does-not-exist")))
	return w, bin
}

func appendConfig(t *testing.T, home, toml string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + toml); err != nil {
		t.Fatal(err)
	}
}

// mcpStatusView is what the tests compare of one McpServerStatus.
type mcpStatusView struct {
	Name          string
	RuntimeStatus string
	ServerInfo    string
	Tools         []string
	ToolsError    string
	Resources     []string
	Templates     []string
	AuthStatus    string
}

type mcpStatusPage struct {
	Data []struct {
		Name          string  `json:"name"`
		RuntimeStatus *string `json:"runtimeStatus"`
		ServerInfo    *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Tools             map[string]json.RawMessage `json:"tools"`
		ToolsError        *string                    `json:"toolsError"`
		Resources         []struct{ URI string }     `json:"resources"`
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
		AuthStatus string `json:"authStatus"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

func (p mcpStatusPage) view() []mcpStatusView {
	var out []mcpStatusView
	for _, d := range p.Data {
		v := mcpStatusView{Name: d.Name, AuthStatus: d.AuthStatus}
		if d.RuntimeStatus != nil {
			v.RuntimeStatus = *d.RuntimeStatus
		}
		if d.ServerInfo != nil {
			v.ServerInfo = d.ServerInfo.Name + " " + d.ServerInfo.Version
		}
		for name := range d.Tools {
			v.Tools = append(v.Tools, name)
		}
		sort.Strings(v.Tools)
		if d.ToolsError != nil {
			v.ToolsError = *d.ToolsError
		}
		for _, r := range d.Resources {
			v.Resources = append(v.Resources, r.URI)
		}
		for _, r := range d.ResourceTemplates {
			v.Templates = append(v.Templates, r.URITemplate)
		}
		out = append(out, v)
	}
	return out
}

var testServerTools = []string{"a_really_long_tool_name_that_goes_on_and_on_and_on_beyond_sixty_four_characters",
	"add", "crash", "cwd", "echo", "env", "fail", "grow", "peek", "slow", "weird.name-tool"}

const missingCommand = "MCP startup failed: No such file or directory (os error 2)"

func badStatus(runtime string) mcpStatusView {
	return mcpStatusView{Name: "bad", RuntimeStatus: runtime, ToolsError: missingCommand, AuthStatus: "unsupported"}
}

// goodStatus is a running test server; info is the name it reports in initialize.
func goodStatus(name, info, runtime string, full bool) mcpStatusView {
	v := mcpStatusView{Name: name, RuntimeStatus: runtime, ServerInfo: info + " 1.0.0", Tools: testServerTools, AuthStatus: "unsupported"}
	if full {
		v.Resources, v.Templates = []string{"test://readme"}, []string{"test://items/{id}"}
	}
	return v
}

// startupStatuses collects n mcpServer/startupStatus/updated notifications as
// "server:status[:error]".
func (cl *client) startupStatuses(n int) []string {
	cl.t.Helper()
	var out []string
	timeout := time.After(20 * time.Second)
	for len(out) < n {
		select {
		case note, ok := <-cl.c.Notifications():
			if !ok {
				cl.t.Fatalf("connection ended; startup statuses so far %v", out)
			}
			if note.Method != "mcpServer/startupStatus/updated" {
				continue
			}
			var p struct {
				ThreadID string  `json:"threadId"`
				Name     string  `json:"name"`
				Status   string  `json:"status"`
				Error    *string `json:"error"`
			}
			if err := json.Unmarshal(note.Params, &p); err != nil {
				cl.t.Fatal(err)
			}
			s := p.Name + ":" + p.Status
			if p.Error != nil {
				s += ":" + *p.Error
			}
			out = append(out, s)
		case <-timeout:
			cl.t.Fatalf("startup statuses: got %v, want %d", out, n)
		}
	}
	return out
}

// checkStartup checks that every server reports starting (in name order) before any
// outcome, and the outcomes (in any order between servers).
func checkStartup(t *testing.T, got []string, starting []string, outcomes []string) {
	t.Helper()
	if diff := cmp.Diff(starting, got[:len(starting)]); diff != "" {
		t.Errorf("starting statuses (-want +got):\n%s", diff)
	}
	rest := append([]string(nil), got[len(starting):]...)
	sort.Strings(rest)
	if diff := cmp.Diff(outcomes, rest); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

func TestMcpServerMethods(t *testing.T) {
	w, bin := mcpWorld(t)
	cl := w.connect(w.Srv)

	// Without a thread, the configured servers are started for the request.
	var page mcpStatusPage
	cl.call("mcpServerStatus/list", map[string]any{}, &page)
	if diff := cmp.Diff([]mcpStatusView{badStatus(""), goodStatus("good", "testserver", "", true)}, page.view()); diff != "" {
		t.Errorf("status without a thread (-want +got):\n%s", diff)
	}

	id := cl.startThread(map[string]any{})
	checkStartup(t, cl.startupStatuses(4), []string{"bad:starting", "good:starting"},
		[]string{"bad:failed:MCP client for `bad` failed to start: " + missingCommand, "good:ready"})

	t.Run("status of the thread's servers", func(t *testing.T) {
		var page mcpStatusPage
		cl.call("mcpServerStatus/list", map[string]any{"threadId": id, "detail": "toolsAndAuthOnly"}, &page)
		want := []mcpStatusView{badStatus("failed"), goodStatus("good", "testserver", "connected", false)}
		if diff := cmp.Diff(want, page.view()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("tool calls", func(t *testing.T) {
		var res map[string]any
		cl.call("mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "echo", "arguments": map[string]any{"text": "hi"}}, &res)
		if diff := cmp.Diff(map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: hi"}}}, res); diff != "" {
			t.Errorf("echo (-want +got):\n%s", diff)
		}
		res = nil
		cl.call("mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "add", "arguments": map[string]any{"a": 1, "b": 2}}, &res)
		want := map[string]any{"content": []any{map[string]any{"type": "text", "text": `{"sum":3}`}}, "structuredContent": map[string]any{"sum": 3.0}}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("add (-want +got):\n%s", diff)
		}
		res = nil
		cl.call("mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "fail"}, &res)
		if res["isError"] != true {
			t.Errorf("fail: %v", res)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			method string
			params map[string]any
			want   jsonrpc.Error
		}{
			{"mcpServer/tool/call", map[string]any{"threadId": id, "server": "bad", "tool": "echo"},
				jsonrpc.Error{Code: -32603, Message: "failed to get client: " + missingCommand}},
			{"mcpServer/tool/call", map[string]any{"threadId": id, "server": "nope", "tool": "echo"},
				jsonrpc.Error{Code: -32603, Message: "unknown MCP server 'nope'"}},
			{"mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "nosuch"},
				jsonrpc.Error{Code: -32602, Message: `unknown tool "nosuch"`}},
			{"mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "echo", "arguments": "str"},
				jsonrpc.Error{Code: -32603, Message: "tool call failed for `good/echo`: MCP tool arguments must be a JSON object, got \"str\""}},
			{"mcpServer/tool/call", map[string]any{"threadId": "01a20294-afb8-7582-9ce7-20fbc8295e4f", "server": "good", "tool": "echo"},
				jsonrpc.Error{Code: -32600, Message: "thread not found: 01a20294-afb8-7582-9ce7-20fbc8295e4f"}},
			{"mcpServer/resource/read", map[string]any{"threadId": id, "server": "good", "uri": "test://nothing"},
				jsonrpc.Error{Code: -32602, Message: "Resource not found", Data: json.RawMessage(`{"uri":"test://nothing"}`)}},
			{"mcpServer/resource/read", map[string]any{"server": "zzz", "uri": "test://readme"},
				jsonrpc.Error{Code: -32603, Message: "unknown MCP server 'zzz'"}},
			{"mcpServerStatus/list", map[string]any{"cursor": "zz"}, jsonrpc.Error{Code: -32600, Message: "invalid cursor: zz"}},
			// Codex 0.171's environmentId: gocodex has only the local environment.
			{"mcpServer/tool/call", map[string]any{"threadId": id, "server": "good", "tool": "echo", "environmentId": "remote"},
				jsonrpc.Error{Code: -32600, Message: "gocodex has no environment `remote`: its MCP servers run in the local environment"}},
			{"mcpServer/resource/read", map[string]any{"threadId": id, "server": "good", "uri": "test://readme", "environmentId": "remote"},
				jsonrpc.Error{Code: -32600, Message: "gocodex has no environment `remote`: its MCP servers run in the local environment"}},
			{"mcpServerStatus/list", map[string]any{"threadId": id, "serverName": "good", "environmentId": "remote"},
				jsonrpc.Error{Code: -32600, Message: "gocodex has no environment `remote`: its MCP servers run in the local environment"}},
			{"mcpServerStatus/list", map[string]any{"threadId": id, "cursor": "9"},
				jsonrpc.Error{Code: -32600, Message: "cursor 9 exceeds total MCP servers 2"}},
		} {
			got := cl.callErr(tc.method, tc.params)
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("%s %v (-want +got):\n%s", tc.method, tc.params, diff)
			}
		}
	})

	t.Run("pages", func(t *testing.T) {
		var first, second mcpStatusPage
		cl.call("mcpServerStatus/list", map[string]any{"threadId": id, "limit": 1}, &first)
		if len(first.Data) != 1 || first.Data[0].Name != "bad" || first.NextCursor == nil || *first.NextCursor != "1" {
			t.Fatalf("first page %+v", first)
		}
		cl.call("mcpServerStatus/list", map[string]any{"threadId": id, "limit": 1, "cursor": "1"}, &second)
		if len(second.Data) != 1 || second.Data[0].Name != "good" || second.NextCursor != nil {
			t.Fatalf("second page %+v", second)
		}
	})

	t.Run("resource read", func(t *testing.T) {
		want := map[string]any{"contents": []any{map[string]any{"uri": "test://readme", "mimeType": "text/plain", "text": "read me"}}, "originCallId": nil}
		for _, params := range []map[string]any{
			{"threadId": id, "server": "good", "uri": "test://readme"},
			{"server": "good", "uri": "test://readme"}, // servers started for the request
		} {
			var res map[string]any
			cl.call("mcpServer/resource/read", params, &res)
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("%v (-want +got):\n%s", params, diff)
			}
		}
	})

	// A server added to config.toml joins the loaded thread after a reload.
	appendConfig(t, w.Home, fmt.Sprintf("[mcp_servers.extra]\ncommand = %q\nargs = [\"-name\", \"extra\"]\n", bin))
	var empty map[string]any
	cl.call("config/mcpServer/reload", nil, &empty)
	if len(empty) != 0 {
		t.Errorf("reload answered %v", empty)
	}
	checkStartup(t, cl.startupStatuses(6), []string{"bad:starting", "extra:starting", "good:starting"},
		[]string{"bad:failed:MCP client for `bad` failed to start: " + missingCommand, "extra:ready", "good:ready"})
	cl.call("mcpServerStatus/list", map[string]any{"threadId": id, "detail": "toolsAndAuthOnly"}, &page)
	want := []mcpStatusView{badStatus("failed"), goodStatus("extra", "extra", "connected", false), goodStatus("good", "testserver", "connected", false)}
	if diff := cmp.Diff(want, page.view()); diff != "" {
		t.Errorf("status after reload (-want +got):\n%s", diff)
	}
	var res map[string]any
	cl.call("mcpServer/tool/call", map[string]any{"threadId": id, "server": "extra", "tool": "echo", "arguments": map[string]any{"text": "x"}}, &res)
	if fmt.Sprint(res["content"]) != "[map[text:echo: x type:text]]" {
		t.Errorf("extra echo: %v", res)
	}

	// The thread's own tools reach the restarted servers: the model calls good's echo.
	w.Model.Enqueue(
		tk.SSE(tk.Created(), tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0,
			"item": map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": "mcp__good",
				"name": "echo", "arguments": `{"text":"after reload"}`, "status": "completed"}}),
			tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6})),
		answer("done"))
	cl.turn(id, "use the tool")
	ns := cl.until("turn/completed")
	var result any
	for _, it := range find(ns, "item/completed") {
		if item := it["item"].(map[string]any); item["type"] == "mcpToolCall" {
			result = item["result"]
		}
	}
	if !strings.Contains(fmt.Sprint(result), "echo: after reload") {
		t.Errorf("mcpToolCall result after reload: %v (notifications %v)", result, methods(ns))
	}
	// The server the reload added is offered to the model from this turn on.
	reqs := w.Model.Requests()
	tools, _ := json.Marshal(reqs[len(reqs)-1].JSON["tools"])
	if !strings.Contains(string(tools), `"mcp__extra"`) {
		t.Errorf("the turn after the reload does not offer mcp__extra: %s", tools)
	}
}
