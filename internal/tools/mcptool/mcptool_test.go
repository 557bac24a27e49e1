package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gocodex-mcptool-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServer, "../../mcp/testdata/testserver")
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

// The namespace spec sent for the test server is the one Codex 0.169 sent for the same
// server (recorded from its request to the scripted model).
func TestNamespaceSpecMatchesCodex(t *testing.T) {
	// (grow is newer than the recording)
	m := mcp.New(mcp.Options{Servers: map[string]config.McpServerConfig{"ts": {Command: testServer, DisabledTools: []string{"grow", "crash"}}}})
	m.Start()
	defer m.Close()
	want, err := os.ReadFile(filepath.Join("testdata", "namespace_ts.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := NewNamespace(m, "ts", Options{}).Spec()
	if diff := cmp.Diff(strings.TrimSpace(string(want)), string(got)); diff != "" {
		t.Errorf("spec (-codex +ours):\n%s", diff)
	}
}

func TestSanitizeSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"nil", `null`, `{"type":"object","properties":{}}`},
		{"empty object", `{"type":"object"}`, `{"type":"object","properties":{}}`},
		{"drops unknown keywords", `{"$schema":"x","type":"object","title":"T","properties":{"a":{"type":"string","format":"uri","default":"d"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"sorted properties, required, additionalProperties", `{"type":"object","additionalProperties":false,"required":["b"],"properties":{"b":{"type":"integer","description":"B"},"a":{"type":"number"}}}`,
			`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer","description":"B"}},"required":["b"],"additionalProperties":false}`},
		{"type list picks non-null", `{"properties":{"a":{"type":["null","string"]}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"inferred types", `{"properties":{"o":{"properties":{}},"l":{"items":{"type":"boolean"}},"s":{}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"boolean"}},"o":{"type":"object","properties":{}},"s":{"type":"string"}}}`},
		{"array without items", `{"properties":{"l":{"type":"array"}}}`, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`},
		{"enum and anyOf", `{"properties":{"e":{"type":"string","enum":["x","y"]},"u":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`,
			`{"type":"object","properties":{"e":{"type":"string","enum":["x","y"]},"u":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`},
		{"schema-valued additionalProperties", `{"type":"object","additionalProperties":{"type":"string"}}`,
			`{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			if got := string(sanitizeSchema(in)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func FuzzSanitizeSchema(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[true,{"type":"null"}]}}}}`, `[1,2]`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var in any
		if json.Unmarshal([]byte(s), &in) != nil {
			return
		}
		out := sanitizeSchema(in)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON for %s: %s", s, out)
		}
	})
}

// fakeManager serves fixed tools and answers.
type fakeManager struct {
	tools   []*sdk.Tool
	result  *sdk.CallToolResult
	err     error
	mu      sync.Mutex
	calls   []string
	args    []map[string]any
	startup error
}

func (f *fakeManager) Names() []string            { return []string{"srv"} }
func (f *fakeManager) Instructions(string) string { return "" }
func (f *fakeManager) Tools(context.Context, string) ([]*sdk.Tool, error) {
	return f.tools, f.startup
}
func (f *fakeManager) CallTool(_ context.Context, _, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, tool)
	f.args = append(f.args, args)
	return f.result, f.err
}
func (f *fakeManager) ListResources(context.Context, string, string) (*sdk.ListResourcesResult, error) {
	return &sdk.ListResourcesResult{Resources: []*sdk.Resource{{URI: "r://1", Name: "one", MIMEType: "text/plain"}}, NextCursor: "c2"}, nil
}
func (f *fakeManager) ListResourceTemplates(context.Context, string, string) (*sdk.ListResourceTemplatesResult, error) {
	return &sdk.ListResourceTemplatesResult{}, nil
}
func (f *fakeManager) ReadResource(_ context.Context, _, uri string) (*sdk.ReadResourceResult, error) {
	if uri == "r://missing" {
		return nil, errors.New("not found")
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, Text: "body"}}}, nil
}

// recorder is a tool.Env that keeps events and answers approvals.
type recorder struct {
	events   []protocol.EventMsg
	asked    []protocol.ExecApprovalRequestEvent
	decision protocol.ReviewDecisionKind
}

func (r *recorder) env(approval protocol.AskForApproval, sandbox protocol.SandboxMode) *tool.Env {
	return &tool.Env{
		TurnID: "turn1", Cwd: "/w", Approval: approval, Sandbox: protocol.SandboxPolicy{Mode: sandbox},
		Emit: func(ev protocol.EventMsg) { r.events = append(r.events, ev) },
		RequestApproval: func(_ context.Context, req tool.ApprovalRequest) (protocol.ReviewDecision, error) {
			r.asked = append(r.asked, *req.Exec)
			return protocol.ReviewDecision{Kind: r.decision}, nil
		},
	}
}

// fixedClock advances 1.5 ms per reading.
func fixedClock() func() time.Time {
	t0 := time.Unix(1000, 0)
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n) * 1500 * time.Microsecond)
	}
}

func call(name, args string) tool.Call {
	return tool.Call{Kind: tool.FunctionCall, CallID: "c1", Namespace: "mcp__srv", Name: name, Arguments: args}
}

func TestHandleOutputs(t *testing.T) {
	text := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}}}}
	structured := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"sum":3}`}}, StructuredContent: map[string]any{"sum": 3}}
	failed := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "it failed"}}, IsError: true}
	for _, tc := range []struct {
		name      string
		result    *sdk.CallToolResult
		err       error
		wantOut   string
		wantItems []protocol.ContentItem
		success   bool
		endResult string
	}{
		{name: "text and image", result: text, success: true,
			wantItems: []protocol.ContentItem{
				{Type: protocol.ContentInputText, Text: "Wall time: 0.0015 seconds\nOutput:"},
				{Type: protocol.ContentInputText, Text: "hello"},
				{Type: protocol.ContentInputImage, ImageURL: "data:image/png;base64,AQI="}},
			endResult: `{"Ok":{"content":[{"type":"text","text":"hello"},{"type":"image","mimeType":"image/png","data":"AQI="}]}}`},
		{name: "structured", result: structured, success: true,
			wantOut:   "Wall time: 0.0015 seconds\nOutput:\n{\"sum\":3}",
			endResult: `{"Ok":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}`},
		{name: "isError", result: failed, success: false,
			wantItems: []protocol.ContentItem{
				{Type: protocol.ContentInputText, Text: "Wall time: 0.0015 seconds\nOutput:"},
				{Type: protocol.ContentInputText, Text: "it failed"}},
			endResult: `{"Ok":{"content":[{"type":"text","text":"it failed"}],"isError":true}}`},
		{name: "timeout", err: errors.New("timed out awaiting tools/call after 1000ms"), success: false,
			wantItems: []protocol.ContentItem{
				{Type: protocol.ContentInputText, Text: "Wall time: 0.0015 seconds\nOutput:"},
				{Type: protocol.ContentInputText, Text: "tool call error: tool call failed for `srv/echo`\n\nCaused by:\n    timed out awaiting tools/call after 1000ms"}},
			endResult: `{"Err":"tool call error: tool call failed for ` + "`srv/echo`" + `\n\nCaused by:\n    timed out awaiting tools/call after 1000ms"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm := &fakeManager{tools: []*sdk.Tool{{Name: "echo"}}, result: tc.result, err: tc.err}
			rec := &recorder{}
			h := NewNamespace(fm, "srv", Options{Now: fixedClock()})
			res, err := h.Handle(context.Background(), rec.env(protocol.ApprovalNever, protocol.SandboxDangerFullAccess), call("echo", `{"text": "hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tc.wantOut || res.Success != tc.success {
				t.Errorf("output %q success %v", res.Output, res.Success)
			}
			if diff := cmp.Diff(tc.wantItems, res.ContentItems); diff != "" {
				t.Errorf("content items (-want +got):\n%s", diff)
			}
			if len(rec.events) != 2 {
				t.Fatalf("events = %v", rec.events)
			}
			begin := rec.events[0].(protocol.McpToolCallBeginEvent)
			end := rec.events[1].(protocol.McpToolCallEndEvent)
			wantInv := protocol.McpInvocation{Server: "srv", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
			if diff := cmp.Diff(wantInv, begin.Invocation); diff != "" || begin.CallID != "c1" {
				t.Errorf("begin %+v %s", begin, diff)
			}
			if time.Duration(end.Duration) != 1500*time.Microsecond {
				t.Errorf("duration %v", time.Duration(end.Duration))
			}
			b, _ := json.Marshal(end.Result)
			if string(b) != tc.endResult {
				t.Errorf("end result\n got %s\nwant %s", b, tc.endResult)
			}
		})
	}
}

func TestHandleUnknownToolAndBadArguments(t *testing.T) {
	fm := &fakeManager{tools: []*sdk.Tool{{Name: "do.it"}}}
	h := NewNamespace(fm, "srv", Options{})
	rec := &recorder{}
	env := rec.env(protocol.ApprovalNever, protocol.SandboxDangerFullAccess)
	res, _ := h.Handle(context.Background(), env, call("nosuch", `{}`))
	if res.Output != "unsupported call: mcp__srvnosuch" {
		t.Errorf("unknown tool output %q", res.Output)
	}
	res, _ = h.Handle(context.Background(), env, call("do_it", `{not json`))
	if !strings.HasPrefix(res.Output, "failed to parse function arguments: ") {
		t.Errorf("bad arguments output %q", res.Output)
	}
	if len(rec.events) != 0 || len(fm.calls) != 0 {
		t.Errorf("events %v calls %v", rec.events, fm.calls)
	}
	// The sanitised name reaches the tool under its own name; no arguments is null.
	if _, err := h.Handle(context.Background(), env, call("do_it", "")); err != nil {
		t.Fatal(err)
	}
	if len(fm.calls) != 1 || fm.calls[0] != "do.it" || fm.args[0] != nil {
		t.Errorf("calls %v args %v", fm.calls, fm.args)
	}
	if inv := rec.events[0].(protocol.McpToolCallBeginEvent).Invocation; string(inv.Arguments) != "null" {
		t.Errorf("arguments = %s", inv.Arguments)
	}
}

func TestApprovalByPolicy(t *testing.T) {
	readOnly := &sdk.Tool{Name: "peek", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}
	plain := &sdk.Tool{Name: "echo"}
	ok := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ran"}}}
	for _, tc := range []struct {
		name     string
		tool     *sdk.Tool
		approval protocol.AskForApproval
		sandbox  protocol.SandboxMode
		decision protocol.ReviewDecisionKind
		wantRun  bool
		wantAsk  bool
		wantText string
		endTurn  bool
	}{
		{"read-only tool never asks", readOnly, protocol.ApprovalOnRequest, protocol.SandboxReadOnly, "", true, false, "ran", false},
		{"never + full access runs", plain, protocol.ApprovalNever, protocol.SandboxDangerFullAccess, "", true, false, "ran", false},
		{"never + sandbox refuses", plain, protocol.ApprovalNever, protocol.SandboxWorkspaceWrite, "", false, false,
			"MCP tool call requires approval, but approval policy is never", false},
		{"on-request asks, approved", plain, protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite, protocol.DecisionApproved, true, true, "ran", false},
		{"on-request asks, denied", plain, protocol.ApprovalOnRequest, protocol.SandboxReadOnly, protocol.DecisionDenied, false, true, "user rejected MCP tool call", false},
		{"on-request asks, abort", plain, protocol.ApprovalOnRequest, protocol.SandboxReadOnly, protocol.DecisionAbort, false, true, "user cancelled MCP tool call", true},
		{"untrusted asks", plain, protocol.ApprovalUntrusted, protocol.SandboxReadOnly, protocol.DecisionApproved, true, true, "ran", false},
		{"on-request + full access runs", plain, protocol.ApprovalOnRequest, protocol.SandboxDangerFullAccess, "", true, false, "ran", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm := &fakeManager{tools: []*sdk.Tool{tc.tool}, result: ok}
			rec := &recorder{decision: tc.decision}
			h := NewNamespace(fm, "srv", Options{})
			res, err := h.Handle(context.Background(), rec.env(tc.approval, tc.sandbox), call(tc.tool.Name, `{}`))
			if err != nil {
				t.Fatal(err)
			}
			if (len(fm.calls) == 1) != tc.wantRun || (len(rec.asked) == 1) != tc.wantAsk || res.EndTurn != tc.endTurn {
				t.Errorf("ran %v asked %v endTurn %v", fm.calls, rec.asked, res.EndTurn)
			}
			if got := res.ContentItems[len(res.ContentItems)-1].Text; got != tc.wantText {
				t.Errorf("text %q, want %q", got, tc.wantText)
			}
			if len(rec.events) != 2 {
				t.Errorf("events %v", rec.events)
			}
		})
	}
}

func TestApprovedForSessionAsksOnce(t *testing.T) {
	fm := &fakeManager{tools: []*sdk.Tool{{Name: "echo"}}, result: &sdk.CallToolResult{}}
	rec := &recorder{decision: protocol.DecisionApprovedForSession}
	h := NewNamespace(fm, "srv", Options{})
	for range 2 {
		if _, err := h.Handle(context.Background(), rec.env(protocol.ApprovalOnRequest, protocol.SandboxReadOnly), call("echo", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.asked) != 1 || len(fm.calls) != 2 {
		t.Errorf("asked %d times, ran %d times", len(rec.asked), len(fm.calls))
	}
	if a := rec.asked[0]; a.CallID != "c1" || a.Reason == nil || *a.Reason != `Allow the srv MCP server to run tool "echo"?` {
		t.Errorf("approval request %+v", a)
	}
}

func TestSpecOfServerWithoutTools(t *testing.T) {
	h := NewNamespace(&fakeManager{startup: errors.New("down")}, "srv", Options{})
	r := tools.NewRegistry(tool.Options{}, nil)
	if err := r.Add(h); err == nil {
		t.Error("a server that did not start was offered")
	}
}

func TestResourceTools(t *testing.T) {
	fm := &fakeManager{}
	hs := NewResourceHandlers(fm, Options{Now: fixedClock()})
	byName := map[string]tool.Handler{}
	for _, h := range hs {
		var head struct{ Name string }
		_ = json.Unmarshal(h.Spec(), &head)
		byName[head.Name] = h
	}
	for _, tc := range []struct {
		tool, args string
		want       string
		server     string // "" when no events are expected
	}{
		{NameListResources, `{}`, `{"resources":[{"server":"srv","uri":"r://1","name":"one","mimeType":"text/plain"}],"nextCursor":"c2"}`, "codex"},
		{NameListResources, `{"server":"srv"}`, `{"server":"srv","resources":[{"server":"srv","uri":"r://1","name":"one","mimeType":"text/plain"}],"nextCursor":"c2"}`, "srv"},
		{NameListResourceTemplates, `{"server":"srv"}`, `{"server":"srv","resourceTemplates":[]}`, "srv"},
		{NameReadResource, `{"server":"srv","uri":"r://1"}`, `{"server":"srv","uri":"r://1","contents":[{"uri":"r://1","text":"body"}]}`, "srv"},
		{NameReadResource, `{"server":"srv","uri":"r://missing"}`, `resources/read failed: not found`, "srv"},
		{NameReadResource, `{"server":"nope","uri":"x"}`, `unknown MCP server 'nope'`, ""},
		{NameListResources, `{"cursor":"c"}`, `cursor can only be used when a server is specified`, "codex"},
	} {
		rec := &recorder{}
		res, err := byName[tc.tool].Handle(context.Background(), rec.env(protocol.ApprovalNever, protocol.SandboxReadOnly),
			tool.Call{CallID: "r1", Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != tc.want {
			t.Errorf("%s %s = %s\nwant %s", tc.tool, tc.args, res.Output, tc.want)
		}
		if tc.server == "" {
			if len(rec.events) != 0 {
				t.Errorf("%s %s: events %v", tc.tool, tc.args, rec.events)
			}
			continue
		}
		if len(rec.events) != 2 || rec.events[0].(protocol.McpToolCallBeginEvent).Invocation.Server != tc.server {
			t.Errorf("%s %s: events %v", tc.tool, tc.args, rec.events)
		}
	}
}

func TestHandlersOrder(t *testing.T) {
	hs := Handlers(&fakeManager{tools: []*sdk.Tool{{Name: "x"}}}, Options{})
	var names []string
	for _, h := range hs {
		var head struct{ Name string }
		_ = json.Unmarshal(h.Spec(), &head)
		names = append(names, head.Name)
	}
	want := []string{NameListResources, NameListResourceTemplates, NameReadResource, "mcp__srv"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

type parallelManager struct {
	fakeManager
	parallel bool
}

func (p *parallelManager) SupportsParallel(string) bool { return p.parallel }

func TestSupportsParallel(t *testing.T) {
	for _, tc := range []struct {
		m    Manager
		want bool
	}{
		{&fakeManager{}, false},
		{&parallelManager{parallel: false}, false},
		{&parallelManager{parallel: true}, true},
	} {
		if got := NewNamespace(tc.m, "srv", Options{}).SupportsParallel(); got != tc.want {
			t.Errorf("%T: SupportsParallel = %v", tc.m, got)
		}
	}
	for _, h := range NewResourceHandlers(&fakeManager{}, Options{}) {
		if p, ok := h.(interface{ SupportsParallel() bool }); !ok || !p.SupportsParallel() {
			t.Errorf("resource tool %s is not parallel", h.Spec())
		}
	}
}

func TestInterruptedCallStillEnds(t *testing.T) {
	fm := &fakeManager{tools: []*sdk.Tool{{Name: "echo"}}, err: context.Canceled}
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := NewNamespace(fm, "srv", Options{})
	if _, err := h.Handle(ctx, rec.env(protocol.ApprovalNever, protocol.SandboxDangerFullAccess), call("echo", `{}`)); err == nil {
		t.Fatal("a canceled call returned no error")
	}
	if len(rec.events) != 2 {
		t.Fatalf("events = %v", rec.events)
	}
	if _, ok := rec.events[1].(protocol.McpToolCallEndEvent); !ok {
		t.Errorf("last event %T, want mcp_tool_call_end", rec.events[1])
	}
}
