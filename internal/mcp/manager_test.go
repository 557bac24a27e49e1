package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// testServer is the go-sdk test server of testdata/testserver, built once.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gocodex-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServer, "./testdata/testserver")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build test server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// events collects what the manager reports.
type events struct {
	mu  sync.Mutex
	evs []protocol.EventMsg
	ch  chan protocol.EventMsg
}

func newEvents() *events { return &events{ch: make(chan protocol.EventMsg, 100)} }

func (e *events) add(ev protocol.EventMsg) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
	e.ch <- ev
}

// waitFor returns the first event (from now on) that match accepts.
func (e *events) waitFor(t *testing.T, match func(protocol.EventMsg) bool) protocol.EventMsg {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("event did not arrive")
			return nil
		}
	}
}

func isComplete(ev protocol.EventMsg) bool {
	_, ok := ev.(protocol.McpStartupCompleteEvent)
	return ok
}

func fsec(v float64) *float64 { return &v }

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func startManager(t *testing.T, servers map[string]config.McpServerConfig, getenv func(string) string) (*Manager, *events) {
	t.Helper()
	evs := newEvents()
	client := &http.Client{Transport: &http.Transport{}}
	m := New(Options{Servers: servers, Getenv: getenv, OnEvent: evs.add, HTTPClient: client})
	m.Start()
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
		client.CloseIdleConnections()
	})
	return m, evs
}

func toolNames(ts []*sdk.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func textOf(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func callText(t *testing.T, m *Manager, server, tool string, args map[string]any) string {
	t.Helper()
	res, err := m.CallTool(context.Background(), server, tool, args)
	if err != nil {
		t.Fatalf("call %s/%s: %v", server, tool, err)
	}
	return textOf(t, res)
}

func TestStdioServer(t *testing.T) {
	cwd := t.TempDir()
	m, evs := startManager(t, map[string]config.McpServerConfig{
		"ts": {Command: testServer, Env: map[string]string{"FROM_TABLE": "table"}, EnvVars: []string{"PASSED_ON"}, Cwd: cwd,
			DisabledTools: []string{"fail"}},
	}, envMap(map[string]string{"PATH": os.Getenv("PATH"), "PASSED_ON": "passed", "SECRET_KEY": "kept-back"}))

	tools, err := m.Tools(context.Background(), "ts")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a_really_long_tool_name_that_goes_on_and_on_and_on_beyond_sixty_four_characters", "add", "crash", "cwd", "echo", "env", "grow", "peek", "slow", "weird.name-tool"}
	if diff := cmp.Diff(want, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"text": "hi"}, "echo: hi"},
		{"env", map[string]any{"name": "FROM_TABLE"}, "table"},
		{"env", map[string]any{"name": "PASSED_ON"}, "passed"},
		{"env", map[string]any{"name": "SECRET_KEY"}, ""},
		{"cwd", nil, cwd},
	} {
		if got := callText(t, m, "ts", tc.tool, tc.args); got != tc.want {
			t.Errorf("%s(%v) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	evs.waitFor(t, isComplete)
	evs.mu.Lock()
	got := evs.evs
	evs.mu.Unlock()
	wantEvs := []protocol.EventMsg{
		protocol.McpStartupUpdateEvent{Server: "ts", Status: json.RawMessage(`{"state":"starting"}`)},
		protocol.McpStartupUpdateEvent{Server: "ts", Status: json.RawMessage(`{"state":"ready"}`)},
		protocol.McpStartupCompleteEvent{Ready: []string{"ts"}, Failed: []protocol.McpStartupFailure{}, Cancelled: []string{}},
	}
	if diff := cmp.Diff(wantEvs, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// startHTTPServer runs the test server over streamable HTTP and returns its URL.
func startHTTPServer(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(testServer, append([]string{"-http"}, args...)...)
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
		t.Fatalf("read server URL: %v", err)
	}
	return strings.TrimSpace(line)
}

func TestStreamableHTTPServerWithHeaders(t *testing.T) {
	url := startHTTPServer(t, "-require-header", "Authorization=Bearer s3cret;X-Static=1;X-From-Env=2")
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"web": {URL: url, BearerTokenEnvVar: "TOKEN", HTTPHeaders: map[string]string{"X-Static": "1"},
			EnvHTTPHeaders: map[string]string{"X-From-Env": "HEADER_VAL"}, EnabledTools: []string{"add", "echo"}},
	}, envMap(map[string]string{"TOKEN": "s3cret", "HEADER_VAL": "2"}))
	tools, err := m.Tools(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"add", "echo"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	res, err := m.CallTool(context.Background(), "web", "add", map[string]any{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"sum":5}` {
		t.Errorf("structured content = %s", b)
	}
}

func TestHTTPServerWithoutItsHeadersFails(t *testing.T) {
	url := startHTTPServer(t, "-require-header", "Authorization=Bearer s3cret")
	m, _ := startManager(t, map[string]config.McpServerConfig{"web": {URL: url}}, envMap(nil))
	if _, err := m.Tools(context.Background(), "web"); err == nil {
		t.Fatal("a server answering 401 started")
	}
}

func TestMissingBearerTokenVariable(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"web": {URL: "http://127.0.0.1:1/mcp", BearerTokenEnvVar: "UNSET_TOKEN"},
	}, envMap(nil))
	_, err := m.Tools(context.Background(), "web")
	if err == nil || !strings.Contains(err.Error(), "UNSET_TOKEN") {
		t.Fatalf("err = %v, want one naming the variable", err)
	}
}

func TestHangingServerSettlesAtItsTimeout(t *testing.T) {
	m, evs := startManager(t, map[string]config.McpServerConfig{
		"hang": {Command: testServer, Args: []string{"-hang"}, StartupTimeoutSec: fsec(0.2)},
		"ts":   {Command: testServer},
	}, envMap(map[string]string{"PATH": os.Getenv("PATH")}))
	_, err := m.Tools(context.Background(), "hang")
	wantErr := "MCP client for `hang` timed out after 0.2 seconds. Add or adjust `startup_timeout_sec` in your config.toml:\n[mcp_servers.hang]\nstartup_timeout_sec = XX"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("err = %v, want %q", err, wantErr)
	}
	if _, err := m.Tools(context.Background(), "ts"); err != nil {
		t.Fatal(err)
	}
	ev := evs.waitFor(t, isComplete).(protocol.McpStartupCompleteEvent)
	want := protocol.McpStartupCompleteEvent{Ready: []string{"ts"}, Failed: []protocol.McpStartupFailure{{Server: "hang", Error: wantErr}}, Cancelled: []string{}}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("complete (-want +got):\n%s", diff)
	}
}

func TestSlowServerJoinsLater(t *testing.T) {
	m, evs := startManager(t, map[string]config.McpServerConfig{
		"late": {Command: testServer, Args: []string{"-start-delay", "500ms"}, StartupTimeoutSec: fsec(0.05)},
	}, envMap(map[string]string{"PATH": os.Getenv("PATH")}))
	if _, err := m.Tools(context.Background(), "late"); err == nil {
		t.Fatal("server ready before its delay")
	}
	evs.waitFor(t, func(ev protocol.EventMsg) bool {
		u, ok := ev.(protocol.McpStartupUpdateEvent)
		return ok && string(u.Status) == `{"state":"ready"}`
	})
	tools, err := m.Tools(context.Background(), "late")
	if err != nil || len(tools) == 0 {
		t.Fatalf("after joining: %d tools, err %v", len(tools), err)
	}
	if got := callText(t, m, "late", "echo", map[string]any{"text": "x"}); got != "echo: x" {
		t.Errorf("echo = %q", got)
	}
}

func TestRequiredServerFailure(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"bad":      {Command: "/nonexistent/mcp-server", Required: true},
		"optional": {Command: "/nonexistent/other"},
	}, envMap(nil))
	err := m.WaitRequired(context.Background())
	want := "required MCP servers failed to initialize: bad: No such file or directory (os error 2)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestRequiredServerThatStarts(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"ts": {Command: testServer, Required: true},
	}, envMap(map[string]string{"PATH": os.Getenv("PATH")}))
	if err := m.WaitRequired(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestToolTimeout(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"ts": {Command: testServer, ToolTimeoutSec: fsec(0.2)},
	}, envMap(nil))
	_, err := m.CallTool(context.Background(), "ts", "slow", map[string]any{"ms": 10000})
	if err == nil || err.Error() != "timed out awaiting tools/call after 200ms" {
		t.Fatalf("err = %v", err)
	}
	// The session survives a timed-out call.
	if got := callText(t, m, "ts", "echo", map[string]any{"text": "still"}); got != "echo: still" {
		t.Errorf("echo after timeout = %q", got)
	}
}

func TestDisabledServerIsNotStarted(t *testing.T) {
	off := false
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"off": {Command: testServer, Enabled: &off},
	}, envMap(nil))
	if len(m.Names()) != 0 {
		t.Errorf("names = %v", m.Names())
	}
	if _, err := m.Tools(context.Background(), "off"); err == nil {
		t.Error("a disabled server has tools")
	}
}

func TestCloseEndsServerProcesses(t *testing.T) {
	evs := newEvents()
	m := New(Options{Servers: map[string]config.McpServerConfig{
		"ts":   {Command: testServer},
		"hang": {Command: testServer, Args: []string{"-hang"}},
	}, Getenv: envMap(nil), OnEvent: evs.add})
	m.Start()
	if _, err := m.Tools(context.Background(), "ts"); err != nil {
		t.Fatal(err)
	}
	pid := m.servers["ts"].cmd.Process.Pid
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Errorf("server process %d still alive after Close", pid)
	}
	if st, _ := m.servers["hang"].status(); st != StateCancelled {
		t.Errorf("hanging server state after Close = %s, want cancelled", st)
	}
}

func TestListTools(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{
		"ts":  {Command: testServer, EnabledTools: []string{"echo"}},
		"bad": {Command: "/nonexistent/x"},
	}, envMap(nil))
	ev := m.ListTools(context.Background())
	var keys []string
	for k := range ev.Tools {
		keys = append(keys, k)
	}
	if diff := cmp.Diff([]string{"mcp__ts__echo"}, keys); diff != "" {
		t.Errorf("tool keys (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(ev.Tools["mcp__ts__echo"]), `"name":"echo"`) {
		t.Errorf("tool = %s", ev.Tools["mcp__ts__echo"])
	}
	if !strings.Contains(string(ev.Resources["ts"]), `"uri":"test://readme"`) {
		t.Errorf("resources = %s", ev.Resources["ts"])
	}
	if !strings.Contains(string(ev.ResourceTemplates["ts"]), `"uriTemplate":"test://items/{id}"`) {
		t.Errorf("templates = %s", ev.ResourceTemplates["ts"])
	}
	if diff := cmp.Diff(map[string]json.RawMessage{"bad": json.RawMessage(`"unsupported"`), "ts": json.RawMessage(`"unsupported"`)}, ev.AuthStatuses); diff != "" {
		t.Errorf("auth statuses (-want +got):\n%s", diff)
	}
}

func TestResources(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{"ts": {Command: testServer}}, envMap(nil))
	if _, err := m.Tools(context.Background(), "ts"); err != nil {
		t.Fatal(err)
	}
	if !m.HasResources("ts") {
		t.Fatal("server advertises no resources")
	}
	res, err := m.ReadResource(context.Background(), "ts", "test://items/7")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != "item 7" {
		t.Errorf("contents = %+v", res.Contents)
	}
	if _, err := m.ReadResource(context.Background(), "nope", "x"); err == nil || err.Error() != "unknown MCP server 'nope'" {
		t.Errorf("unknown server err = %v", err)
	}
}

func TestOptionalServerIsWaitedForOnlyDuringTheGrace(t *testing.T) {
	evs := newEvents()
	m := New(Options{Servers: map[string]config.McpServerConfig{
		"slow":     {Command: testServer, Args: []string{"-start-delay", "400ms"}},
		"required": {Command: testServer, Args: []string{"-start-delay", "200ms"}, Required: true},
	}, Getenv: envMap(nil), OnEvent: evs.add, OptionalGrace: 50 * time.Millisecond})
	m.Start()
	defer m.Close()
	if _, err := m.Tools(context.Background(), "slow"); !errors.Is(err, ErrStillStarting) {
		t.Fatalf("err = %v, want ErrStillStarting", err)
	}
	// A required server is waited for past the grace.
	if tools, err := m.Tools(context.Background(), "required"); err != nil || len(tools) == 0 {
		t.Fatalf("required: %d tools, err %v", len(tools), err)
	}
	evs.waitFor(t, isComplete)
	if tools, err := m.Tools(context.Background(), "slow"); err != nil || len(tools) == 0 {
		t.Fatalf("after startup: %d tools, err %v", len(tools), err)
	}
}

func TestToolListChangeIsPickedUp(t *testing.T) {
	m, _ := startManager(t, map[string]config.McpServerConfig{"ts": {Command: testServer}}, envMap(nil))
	if got := callText(t, m, "ts", "grow", nil); got != "grew" {
		t.Fatalf("grow = %q", got)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		tools, err := m.Tools(context.Background(), "ts")
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(toolNames(tools), "grown") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools after list_changed: %v", toolNames(tools))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := callText(t, m, "ts", "grown", nil); got != "grown" {
		t.Errorf("grown = %q", got)
	}
}

func TestServerThatExitsIsMarkedFailed(t *testing.T) {
	m, evs := startManager(t, map[string]config.McpServerConfig{"ts": {Command: testServer}}, envMap(nil))
	if _, err := m.Tools(context.Background(), "ts"); err != nil {
		t.Fatal(err)
	}
	evs.waitFor(t, isComplete)
	if _, err := m.CallTool(context.Background(), "ts", "crash", nil); err == nil {
		t.Fatal("a call that killed its server succeeded")
	}
	ev := evs.waitFor(t, func(ev protocol.EventMsg) bool {
		u, ok := ev.(protocol.McpStartupUpdateEvent)
		return ok && strings.Contains(string(u.Status), `"failed"`)
	}).(protocol.McpStartupUpdateEvent)
	if !strings.Contains(string(ev.Status), "MCP server `ts` closed the connection") {
		t.Errorf("status = %s", ev.Status)
	}
	if tools, err := m.Tools(context.Background(), "ts"); err == nil || len(tools) != 0 {
		t.Errorf("after exit: %d tools, err %v", len(tools), err)
	}
}
