package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The MCP client end to end: the built binary runs `exec --json` with [mcp_servers]
// pointing at real MCP servers (the go-sdk test server of internal/mcp/testdata over stdio
// and streamable HTTP, and @modelcontextprotocol/server-everything from npm).

var (
	mcpServerOnce sync.Once
	mcpServerBin  string
	mcpServerErr  error
)

// mcpTestServer builds internal/mcp/testdata/testserver next to the gocodex binary.
func mcpTestServer(tb testing.TB) string {
	tb.Helper()
	mcpServerOnce.Do(func() {
		mcpServerBin = filepath.Join(filepath.Dir(binary), "mcp-testserver")
		build := exec.Command("go", "build", "-o", mcpServerBin, "../internal/mcp/testdata/testserver")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			mcpServerErr = fmt.Errorf("build MCP test server: %v\n%s", err, out)
		}
	})
	if mcpServerErr != nil {
		tb.Fatal(mcpServerErr)
	}
	return mcpServerBin
}

// addMcpConfig appends TOML (tables) to the env's config.toml.
func (e *env) addMcpConfig(toml string) {
	e.t.Helper()
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + toml); err != nil {
		e.t.Fatal(err)
	}
}

// namespacedCall is a function_call inside an MCP namespace.
func namespacedCall(callID, namespace, name, args string) tk.Event {
	return tk.Raw("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0,
		"item": map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "namespace": namespace,
			"name": name, "arguments": args, "status": "completed"}})
}

func callThenAnswer(call tk.Event) []tk.Response {
	return []tk.Response{
		tk.SSE(tk.Created(), call, tk.Completed(tk.Usage{Input: 20, Output: 3, Total: 23})),
		answer("done"),
	}
}

// requestTool finds a tool of the request by name.
func requestTool(t *testing.T, body map[string]any, name string) map[string]any {
	t.Helper()
	tools, _ := body["tools"].([]any)
	for _, raw := range tools {
		if tool, ok := raw.(map[string]any); ok && tool["name"] == name {
			return tool
		}
	}
	return nil
}

func toolNamesOf(tool map[string]any) []string {
	var out []string
	inner, _ := tool["tools"].([]any)
	for _, raw := range inner {
		out = append(out, raw.(map[string]any)["name"].(string))
	}
	return out
}

// mcpItem returns the completed mcp_tool_call item of an exec --json run.
func mcpItem(t *testing.T, stdout string) map[string]any {
	t.Helper()
	lines := jsonl(t, stdout)
	want := []string{"thread.started", "turn.started", "item.started:mcp_tool_call", "item.completed:mcp_tool_call", "item.completed:agent_message", "turn.completed"}
	if diff := cmp.Diff(want, types(lines)); diff != "" {
		t.Fatalf("event sequence (-want +got):\n%s\n%s", diff, stdout)
	}
	return lines[3]["item"].(map[string]any)
}

func TestMcpStdioServerToolCall(t *testing.T) {
	e := newEnv(t)
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\nenv = { GREETING = \"hello\" }\n", mcpTestServer(t)))
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__ts", "echo", `{"text":"hi"}`))...)
	r := e.run("", "exec", "--json", "use the tool")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	item := mcpItem(t, r.Stdout)
	want := map[string]any{"id": "item_0", "type": "mcp_tool_call", "server": "ts", "tool": "echo",
		"arguments": map[string]any{"text": "hi"}, "status": "completed", "error": nil,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: hi"}}, "structured_content": nil}}
	if diff := cmp.Diff(want, item); diff != "" {
		t.Errorf("item (-want +got):\n%s", diff)
	}
	reqs := e.Model.Requests()
	ns := requestTool(t, reqs[0].JSON, "mcp__ts")
	if ns == nil || ns["type"] != "namespace" || !strings.Contains(strings.Join(toolNamesOf(ns), ","), "echo") {
		t.Fatalf("namespace tool in the request: %v", ns)
	}
	for _, name := range []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"} {
		if requestTool(t, reqs[0].JSON, name) == nil {
			t.Errorf("request lacks %s", name)
		}
	}
	out := functionOutput(t, reqs[1].JSON, "call_1")
	if !strings.Contains(out, `Wall time: `) || !strings.Contains(out, `"text":"echo: hi"`) {
		t.Errorf("output sent to the model: %s", out)
	}
}

// startHTTPTestServer runs the test server over streamable HTTP.
func startHTTPTestServer(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(mcpTestServer(t), append([]string{"-http"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

func TestMcpStreamableHTTPServerToolCall(t *testing.T) {
	e := newEnv(t)
	url := startHTTPTestServer(t, "-require-header", "Authorization=Bearer tok123;X-Team=core")
	e.ExtraEnv = append(e.ExtraEnv, "MCP_TOKEN=tok123")
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.web]\nurl = %q\nbearer_token_env_var = \"MCP_TOKEN\"\nhttp_headers = { X-Team = \"core\" }\n", url))
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__web", "add", `{"a":2,"b":3}`))...)
	r := e.run("", "exec", "--json", "add")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	item := mcpItem(t, r.Stdout)
	if res, _ := item["result"].(map[string]any); res == nil || fmt.Sprint(res["structured_content"]) != "map[sum:5]" {
		t.Errorf("item = %v", item)
	}
	out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1")
	if !strings.HasPrefix(out, "Wall time: ") || !strings.HasSuffix(out, "seconds\nOutput:\n{\"sum\":5}") {
		t.Errorf("output sent to the model: %q", out)
	}
}

// everythingServer is the published server installed by scripts/test.sh.
func everythingServer(t *testing.T) (node, script string) {
	t.Helper()
	script, _ = filepath.Abs(filepath.Join("mcpnpm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("@modelcontextprotocol/server-everything is not installed (run scripts/test.sh): %v", err)
		}
		t.Skip("@modelcontextprotocol/server-everything is not installed; scripts/test.sh installs it with npm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node, script
}

func TestMcpPublishedNpmServer(t *testing.T) {
	node, script := everythingServer(t)
	e := newEnv(t)
	// Required: node can take longer than the one-second grace of an optional server to start
	// on a loaded machine, and this test is about the call, not the grace.
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nargs = [%q]\nrequired = true\n", node, script))
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__everything", "echo", `{"message":"from gocodex"}`))...)
	r := e.run("", "exec", "--json", "echo")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	item := mcpItem(t, r.Stdout)
	if item["status"] != "completed" || !strings.Contains(fmt.Sprint(item["result"]), "Echo: from gocodex") {
		t.Errorf("item = %v", item)
	}
	reqs := e.Model.Requests()
	if out := functionOutput(t, reqs[1].JSON, "call_1"); !strings.Contains(out, "Echo: from gocodex") {
		t.Errorf("output sent to the model: %s", out)
	}
	// The namespace is the one Codex 0.169 sent for the same server (recorded).
	want, err := os.ReadFile(filepath.Join("testdata", "mcp_everything_namespace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var wantTool map[string]any
	if err := json.Unmarshal(want, &wantTool); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantTool, requestTool(t, reqs[0].JSON, "mcp__everything")); diff != "" {
		t.Errorf("namespace tool (-codex +ours):\n%s", diff)
	}
}

func TestMcpHangingServerDoesNotHoldTheTurn(t *testing.T) {
	e := newEnv(t)
	srv := mcpTestServer(t)
	// The hanging server's startup timeout is far longer than the test may take: the turn
	// must go on after the optional-server grace, not after the timeout.
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.hang]\ncommand = %q\nargs = [\"-hang\"]\nstartup_timeout_sec = 600\n\n[mcp_servers.ts]\ncommand = %q\n", srv, srv))
	e.Model.Enqueue(answer("no tools needed"))
	start := time.Now()
	r := e.run("", "exec", "--json", "hi")
	elapsed := time.Since(start)
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	if elapsed > 45*time.Second {
		t.Fatalf("a hanging server held the turn for %v", elapsed)
	}
	body := e.Model.Requests()[0].JSON
	if requestTool(t, body, "mcp__ts") == nil {
		t.Error("the working server's tools were not offered")
	}
	if requestTool(t, body, "mcp__hang") != nil {
		t.Error("the hanging server's tools were offered")
	}
}

func TestMcpStartupTimeoutBoundsTheWaitForARequiredServer(t *testing.T) {
	e := newEnv(t)
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.hang]\ncommand = %q\nargs = [\"-hang\"]\nrequired = true\nstartup_timeout_sec = 1\n", mcpTestServer(t)))
	r := e.run("", "exec", "--json", "hi")
	if r.Code == 0 {
		t.Fatalf("a required server that never started did not fail the run:\n%s", r.Stdout)
	}
	want := "required MCP servers failed to initialize: hang: MCP client for `hang` timed out after 1 seconds."
	if !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", want, r.Stdout, r.Stderr)
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

func TestMcpRequiredServerFailsClearly(t *testing.T) {
	e := newEnv(t)
	e.addMcpConfig("[mcp_servers.bad]\ncommand = \"/nonexistent/mcp-server\"\nrequired = true\n")
	r := e.run("", "exec", "--json", "hi")
	if r.Code == 0 {
		t.Fatalf("run succeeded:\n%s", r.Stdout)
	}
	want := "required MCP servers failed to initialize: bad: No such file or directory (os error 2)"
	if !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", want, r.Stdout, r.Stderr)
	}
}

func TestMcpToolTimeoutReachesTheModel(t *testing.T) {
	e := newEnv(t)
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\ntool_timeout_sec = 0.5\n", mcpTestServer(t)))
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__ts", "slow", `{"ms":60000}`))...)
	r := e.run("", "exec", "--json", "wait")
	if r.Code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.Code, r.Stderr)
	}
	item := mcpItem(t, r.Stdout)
	wantErr := "tool call error: tool call failed for `ts/slow`\n\nCaused by:\n    timed out awaiting tools/call after 500ms"
	if item["status"] != "failed" || fmt.Sprint(item["error"]) != fmt.Sprint(map[string]any{"message": wantErr}) {
		t.Errorf("item = %v", item)
	}
	if out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1"); !strings.Contains(out, strconv.Quote(wantErr)[1:len(strconv.Quote(wantErr))-1]) {
		t.Errorf("output sent to the model: %s", out)
	}
}

func TestMcpApprovalNeverRefusesUnderASandbox(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{SandboxMode: "workspace-write"})
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\n", mcpTestServer(t)))
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__ts", "echo", `{"text":"x"}`))...)
	e.Model.Enqueue(callThenAnswer(namespacedCall("call_2", "mcp__ts", "peek", `{"text":"x"}`))...)
	r := e.run("", "exec", "--json", "one")
	item := mcpItem(t, r.Stdout)
	if item["status"] != "failed" || fmt.Sprint(item["error"]) != "map[message:MCP tool call requires approval, but approval policy is never]" {
		t.Errorf("item = %v", item)
	}
	// A tool that declares itself read-only runs.
	r = e.run("", "exec", "--json", "two")
	if item := mcpItem(t, r.Stdout); item["status"] != "completed" {
		t.Errorf("read-only tool item = %v", item)
	}
}

func TestMcpProtoStartupEventsAndListTools(t *testing.T) {
	e := newEnv(t)
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\nenabled_tools = [\"echo\"]\n\n[mcp_servers.bad]\ncommand = \"/nonexistent/mcp\"\n", mcpTestServer(t)))
	p := e.startProto()
	evs := p.until("mcp_startup_complete")
	var updates []string
	for _, ev := range evs {
		if msgType(ev) == "mcp_startup_update" {
			msg := ev["msg"].(map[string]any)
			status := msg["status"].(map[string]any)
			updates = append(updates, fmt.Sprint(msg["server"], ":", status["state"]))
		}
	}
	sort.Strings(updates)
	if diff := cmp.Diff([]string{"bad:failed", "bad:starting", "ts:ready", "ts:starting"}, updates); diff != "" {
		t.Errorf("startup updates (-want +got):\n%s", diff)
	}
	complete := evs[len(evs)-1]["msg"].(map[string]any)
	if fmt.Sprint(complete["ready"]) != "[ts]" || fmt.Sprint(complete["failed"]) != "[map[error:No such file or directory (os error 2) server:bad]]" {
		t.Errorf("complete = %v", complete)
	}
	p.send("s1", `{"type":"list_mcp_tools"}`)
	resp := p.until("mcp_list_tools_response")
	msg := resp[len(resp)-1]["msg"].(map[string]any)
	tools := msg["tools"].(map[string]any)
	if _, ok := tools["mcp__ts__echo"]; !ok || len(tools) != 1 {
		t.Errorf("tools = %v", tools)
	}
	if fmt.Sprint(msg["auth_statuses"]) != "map[bad:unsupported ts:unsupported]" {
		t.Errorf("auth statuses = %v", msg["auth_statuses"])
	}
	p.send("s2", `{"type":"shutdown"}`)
	p.until("shutdown_complete")
}

// TestMcpMatchesReference runs the same MCP call through our binary and Codex 0.169 (with a
// model outside the catalog, for which Codex sends MCP namespaces instead of deferring them
// behind tool_search) and compares the namespace sent, the items and the model's input.
func TestMcpMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	srv := mcpTestServer(t)
	type run struct {
		items     []any
		namespace map[string]any
		output    any
	}
	do := func(bin string, call tk.Event) run {
		e := newEnv(t)
		tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Model: "mcp-test-model"})
		e.addMcpConfig(fmt.Sprintf("[mcp_servers.ts]\ncommand = %q\ntool_timeout_sec = 1\n", srv))
		e.Model.Enqueue(callThenAnswer(call)...)
		saved := binary
		binary = bin
		defer func() { binary = saved }()
		r := e.run("", "exec", "--json", "--skip-git-repo-check", "hi")
		var out run
		for _, l := range jsonl(t, r.Stdout) {
			if item, ok := l["item"].(map[string]any); ok && item["type"] == "mcp_tool_call" {
				delete(item, "id")
				out.items = append(out.items, l)
			}
		}
		reqs := e.Model.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%s: %d requests\n%s", bin, len(reqs), r.Stderr)
		}
		out.namespace = requestTool(t, reqs[0].JSON, "mcp__ts")
		for _, raw := range reqs[1].JSON["input"].([]any) {
			if it := raw.(map[string]any); it["type"] == "function_call_output" {
				out.output = it["output"]
			}
		}
		return out
	}
	wallTime := regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
	// Codex appends a Rust stack backtrace to error texts; we do not.
	backtrace := regexp.MustCompile(`\\n\\nStack backtrace:[^"]*`)
	// Codex measures the wait it reports ("after 999ms" for a 1000 ms timeout on a busy
	// machine); we report the configured timeout. Compare the text around the number.
	awaited := regexp.MustCompile(`timed out awaiting ([a-z/]+) after [0-9]+ms`)
	normalize := func(v any) string {
		b, _ := json.Marshal(v)
		s := wallTime.ReplaceAllString(string(b), "Wall time: X seconds")
		s = awaited.ReplaceAllString(s, "timed out awaiting $1 after Nms")
		return backtrace.ReplaceAllString(s, "")
	}
	for _, tc := range []struct {
		name string
		call tk.Event
	}{
		{"text", namespacedCall("call_1", "mcp__ts", "echo", `{"text":"hi"}`)},
		{"structured", namespacedCall("call_1", "mcp__ts", "add", `{"a":1,"b":2}`)},
		{"isError", namespacedCall("call_1", "mcp__ts", "fail", `{}`)},
		{"timeout", namespacedCall("call_1", "mcp__ts", "slow", `{"ms":5000}`)},
		{"list resources", tk.FunctionCall("call_1", "list_mcp_resources", `{}`)},
		{"list templates", tk.FunctionCall("call_1", "list_mcp_resource_templates", `{"server":"ts"}`)},
		{"read resource", tk.FunctionCall("call_1", "read_mcp_resource", `{"server":"ts","uri":"test://readme"}`)},
		{"read resource of an unknown server", tk.FunctionCall("call_1", "read_mcp_resource", `{"server":"nope","uri":"x"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, theirs := do(binary, tc.call), do(ref, tc.call)
			if diff := cmp.Diff(theirs.namespace, ours.namespace); diff != "" {
				t.Errorf("namespace (-codex +ours):\n%s", diff)
			}
			if diff := cmp.Diff(normalize(theirs.items), normalize(ours.items)); diff != "" {
				t.Errorf("items (-codex +ours):\n%s", diff)
			}
			if diff := cmp.Diff(normalize(theirs.output), normalize(ours.output)); diff != "" {
				t.Errorf("model input (-codex +ours):\n%s", diff)
			}
		})
	}
}

const commentedConfig = `# My Codex settings
model = "gpt-5.5"   # the default model

# --- MCP servers ---
[mcp_servers.docs]
# documentation lookups
command = "docs-server"
args = ["--port", "0"]

[profiles.fast]
model = "gpt-5.5-mini"
`

func TestMcpAddRemoveRoundTrip(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	if err := os.WriteFile(path, []byte(commentedConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "add", "local", "--env", "A=1", "--", "my-server", "--flag"},
		{"mcp", "add", "remote", "--url", "http://127.0.0.1:9/mcp", "--bearer-token-env-var", "TOK"},
	} {
		if r := e.run("", args...); r.Code != 0 {
			t.Fatalf("%v: exit %d, %s", args, r.Code, r.Stderr)
		}
	}
	// The new tables go after the other servers; nothing else changes.
	added, _ := os.ReadFile(path)
	wantAdded := "\n[mcp_servers.local]\ncommand = \"my-server\"\nargs = [\"--flag\"]\n\n[mcp_servers.local.env]\nA = \"1\"\n\n[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"TOK\"\n"
	docsEnd := "args = [\"--port\", \"0\"]\n"
	if diff := cmp.Diff(strings.Replace(commentedConfig, docsEnd, docsEnd+wantAdded, 1), string(added)); diff != "" {
		t.Errorf("config after add (-want +got):\n%s", diff)
	}
	r := e.run("", "mcp", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 3 {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	if list[1]["name"] != "local" || fmt.Sprint(list[1]["transport"]) != "map[args:[--flag] command:my-server cwd:<nil> env:map[A:1] env_vars:[] type:stdio]" {
		t.Errorf("local = %v", list[1])
	}
	for _, name := range []string{"local", "remote"} {
		if r := e.run("", "mcp", "remove", name); r.Code != 0 || r.Stdout != "Removed global MCP server '"+name+"'.\n" {
			t.Fatalf("remove %s: %d %q %s", name, r.Code, r.Stdout, r.Stderr)
		}
	}
	back, _ := os.ReadFile(path)
	if string(back) != commentedConfig {
		t.Errorf("add then remove is not byte-identical:\n%s", cmp.Diff(commentedConfig, string(back)))
	}
	// Removing an existing server keeps everything else byte for byte.
	if r := e.run("", "mcp", "remove", "docs"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	after, _ := os.ReadFile(path)
	want := strings.Replace(commentedConfig, "[mcp_servers.docs]\n# documentation lookups\ncommand = \"docs-server\"\nargs = [\"--port\", \"0\"]\n", "", 1)
	if diff := cmp.Diff(want, string(after)); diff != "" {
		t.Errorf("after remove docs (-want +got):\n%s", diff)
	}
	if r := e.run("", "mcp", "remove", "docs"); r.Stdout != "No MCP server named 'docs' found.\n" {
		t.Errorf("second remove: %q", r.Stdout)
	}
}

// BenchmarkMcpFirstTurnFiveServersOneHangs is the wall time of a one-message exec turn (spawn
// to exit) with five configured stdio servers, one of which never answers initialize, at
// the default grace and timeouts. It reports the median.
func BenchmarkMcpFirstTurnFiveServersOneHangs(b *testing.B) {
	srv := mcpTestServer(b)
	e := benchEnv(b)
	var cfg strings.Builder
	for i := range 4 {
		fmt.Fprintf(&cfg, "[mcp_servers.s%d]\ncommand = %q\n\n", i, srv)
	}
	fmt.Fprintf(&cfg, "[mcp_servers.hang]\ncommand = %q\nargs = [\"-hang\"]\n", srv)
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprint(f, "\n"+cfg.String())
	f.Close()
	benchTurns(b, e)
}

// BenchmarkMcpFirstTurnFiveServers is the same with five working servers.
func BenchmarkMcpFirstTurnFiveServers(b *testing.B) {
	srv := mcpTestServer(b)
	e := benchEnv(b)
	var cfg strings.Builder
	for i := range 5 {
		fmt.Fprintf(&cfg, "[mcp_servers.s%d]\ncommand = %q\n\n", i, srv)
	}
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprint(f, "\n"+cfg.String())
	f.Close()
	benchTurns(b, e)
}

func benchTurns(b *testing.B, e *env) {
	e.Model.SetDefault(answer("ok"))
	var walls []time.Duration
	for b.Loop() {
		wall, _ := e.runBench(b, "exec", "--json", "--ephemeral", "hi")
		walls = append(walls, wall)
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
}
