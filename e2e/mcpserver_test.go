package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession is a running `gocodex mcp-server` driven by the go-sdk client over its stdio.
type mcpSession struct {
	t      *testing.T
	client *mcp.ClientSession
	rec    *mcpRecorder
	stderr *bytes.Buffer
}

// startMcpServer starts the binary as an MCP server; answer (optional) is the client's
// elicitation handler.
func (e *env) startMcpServer(answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcpSession {
	e.t.Helper()
	cmd := exec.Command(binary, "mcp-server")
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	opts := &mcp.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return answer(req)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-client", Version: "1"}, opts)
	rec := &mcpRecorder{inner: &mcp.CommandTransport{Command: cmd}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, rec, nil)
	if err != nil {
		e.t.Fatalf("connect to gocodex mcp-server: %v\nstderr: %s", err, stderr.String())
	}
	s := &mcpSession{t: e.t, client: cs, rec: rec, stderr: &stderr}
	e.t.Cleanup(func() {
		// Closing stdin ends the server; CommandTransport waits for the process to exit.
		if err := cs.Close(); err != nil {
			e.t.Logf("close: %v", err)
		}
		if e.t.Failed() {
			e.t.Logf("mcp-server stderr:\n%s", stderr.String())
		}
	})
	return s
}

func (s *mcpSession) call(name string, args any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// mcpRecorder keeps what the go-sdk client has no API for: codex/event notifications and
// the raw elicitation/create params, as they crossed the pipe.
type mcpRecorder struct {
	inner mcp.Transport

	mu      sync.Mutex
	events  []json.RawMessage
	elicits []json.RawMessage
	// elicitIDs are the JSON-RPC ids of the elicitation requests.
	elicitIDs []any
	results   []json.RawMessage
}

func (r *mcpRecorder) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

// takeEvents returns the events recorded since the last call.
func (r *mcpRecorder) takeEvents() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// lastResult is the raw result of the last response the server sent.
func (r *mcpRecorder) lastResult() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.results) == 0 {
		return nil
	}
	return r.results[len(r.results)-1]
}

func (r *mcpRecorder) elicitations() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.elicits...)
}

type recordingConn struct {
	mcp.Connection
	r *mcpRecorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
			c.r.mu.Lock()
			c.r.results = append(c.r.results, append(json.RawMessage(nil), resp.Result...))
			c.r.mu.Unlock()
		}
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok {
			return msg, err
		}
		switch req.Method {
		case "codex/event":
			c.r.mu.Lock()
			c.r.events = append(c.r.events, append(json.RawMessage(nil), req.Params...))
			c.r.mu.Unlock()
			continue // recorded; the go-sdk client has no handler for it
		case "elicitation/create":
			c.r.mu.Lock()
			c.r.elicits = append(c.r.elicits, append(json.RawMessage(nil), req.Params...))
			c.r.elicitIDs = append(c.r.elicitIDs, req.ID.Raw())
			c.r.mu.Unlock()
		}
		return msg, nil
	}
}

func decodeObject(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s: %v", raw, err)
	}
	return m
}

func eventTypes(t *testing.T, raws []json.RawMessage) []string {
	var out []string
	for _, raw := range raws {
		out = append(out, msgType(decodeObject(t, raw)))
	}
	return out
}

func mcpText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result content = %+v", res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", res.Content[0])
	}
	return tc.Text
}

func mcpStructured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	return decodeObject(t, b)
}

func hasType(types []string, want string) bool {
	for _, ty := range types {
		if ty == want {
			return true
		}
	}
	return false
}

func TestMcpServerCodexRunsACommandAndReplyContinues(t *testing.T) {
	e := newEnv(t)
	e.Model.Enqueue(commandCall("call_1", "echo '<tool-said-hi>'"), answer("ran <it>"), answer("still here"))
	s := e.startMcpServer(nil)

	res := s.call("codex", map[string]any{"prompt": "run <echo> for me", "cwd": e.Workdir})
	if res.IsError || mcpText(t, res) != "ran <it>" {
		t.Fatalf("codex result = %+v", res)
	}
	sc := mcpStructured(t, res)
	threadID, _ := sc["threadId"].(string)
	if threadID == "" || sc["content"] != "ran <it>" {
		t.Fatalf("structuredContent = %v", sc)
	}
	// The result is written as Codex writes it: text, then structuredContent, no escaping.
	if raw := string(s.rec.lastResult()); !strings.Contains(raw, `"content":[{"type":"text","text":"ran <it>"}]`) ||
		!strings.Contains(raw, `"structuredContent":{"threadId":"`+threadID+`","content":"ran <it>"}`) {
		t.Errorf("raw result = %s", raw)
	}

	evs := s.rec.takeEvents()
	types := eventTypes(t, evs)
	for _, want := range []string{"session_configured", "task_started", "exec_command_begin", "exec_command_end", "task_complete"} {
		if !hasType(types, want) {
			t.Errorf("no %s notification; got %v", want, types)
		}
	}
	for _, raw := range evs {
		// _meta comes first, and text is not HTML-escaped (serde never escapes <).
		if !bytes.HasPrefix(raw, []byte(`{"_meta":{"requestId":`)) || bytes.Contains(raw, []byte(`\u003c`)) {
			t.Fatalf("codex/event params = %s", raw)
		}
		meta := decodeObject(t, raw)["_meta"].(map[string]any)
		if meta["threadId"] != threadID {
			t.Fatalf("_meta = %v, want threadId %s", meta, threadID)
		}
	}
	for _, raw := range evs {
		if m := decodeObject(t, raw); msgType(m) == "exec_command_end" {
			if out := m["msg"].(map[string]any)["aggregated_output"].(string); !strings.Contains(out, "<tool-said-hi>") {
				t.Errorf("exec_command_end output = %q", out)
			}
		}
	}

	reply := s.call("codex-reply", map[string]any{"threadId": threadID, "prompt": "and now?"})
	if reply.IsError || mcpText(t, reply) != "still here" || mcpStructured(t, reply)["threadId"] != threadID {
		t.Fatalf("codex-reply result = %+v", reply)
	}
	if types := eventTypes(t, s.rec.takeEvents()); !hasType(types, "task_complete") {
		t.Errorf("reply notifications = %v", types)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	// The reply's request carries the whole first conversation: prompt, call, output, answer.
	body := reqs[2].Body
	for _, want := range []string{"run <echo> for me", `"call_1"`, "<tool-said-hi>", "ran <it>", "and now?"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("second-turn input lacks %q: %s", want, body)
		}
	}
}

func TestMcpServerApprovalThroughElicitation(t *testing.T) {
	cases := []struct {
		action  string
		wantRan bool
	}{
		{action: "accept", wantRan: true},
		{action: "decline"},
	}
	for _, tc := range cases {
		t.Run(tc.action, func(t *testing.T) {
			e := newEnv(t)
			e.Model.Enqueue(commandCall("call_1", "touch marker"), answer("finished"))
			var mu sync.Mutex
			var asked []*mcp.ElicitParams
			s := e.startMcpServer(func(req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params)
				mu.Unlock()
				return &mcp.ElicitResult{Action: tc.action}, nil
			})
			res := s.call("codex", map[string]any{"prompt": "make a marker", "approval-policy": "untrusted", "sandbox": "danger-full-access"})
			if res.IsError || mcpText(t, res) != "finished" {
				t.Fatalf("result = %+v", res)
			}
			mu.Lock()
			n := len(asked)
			mu.Unlock()
			if n != 1 {
				t.Fatalf("elicitation handler called %d times, want 1", n)
			}
			if msg := asked[0].Message; !strings.HasPrefix(msg, "Allow Codex to run `") || !strings.Contains(msg, "touch marker") {
				t.Errorf("elicitation message = %q", msg)
			}
			el := s.rec.elicitations()
			p := decodeObject(t, el[0])
			// Codex numbers its requests to the client from 0, as integers.
			if id := s.rec.elicitIDs[0]; id != int64(0) {
				t.Errorf("elicitation id = %#v, want 0", id)
			}
			if p["codex_elicitation"] != "exec-approval" || p["codex_call_id"] != "call_1" || p["threadId"] != mcpStructured(t, res)["threadId"] ||
				p["codex_cwd"] != e.Workdir || p["codex_mcp_tool_call_id"] == nil || p["codex_event_id"] == nil || p["codex_parsed_cmd"] == nil {
				t.Errorf("elicitation params = %s", el[0])
			}
			// The first turn runs under the tools/call id, so both name the request (Codex: "2", "2").
			if p["codex_mcp_tool_call_id"] != p["codex_event_id"] {
				t.Errorf("codex_mcp_tool_call_id %v, codex_event_id %v: want the same request id", p["codex_mcp_tool_call_id"], p["codex_event_id"])
			}
			_, err := os.Stat(filepath.Join(e.Workdir, "marker"))
			if ran := err == nil; ran != tc.wantRan {
				t.Errorf("command ran = %v, want %v", ran, tc.wantRan)
			}
			if !hasType(eventTypes(t, s.rec.takeEvents()), "exec_approval_request") {
				t.Error("no exec_approval_request notification")
			}
			reqs := e.Model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			out := functionOutput(t, reqs[1].JSON, "call_1")
			if rejected := strings.Contains(out, "rejected by user"); rejected == tc.wantRan {
				t.Errorf("model received %q", out)
			}
		})
	}
}

func TestMcpServerBadInput(t *testing.T) {
	e := newEnv(t)
	s := e.startMcpServer(nil)
	res := s.call("codex-reply", map[string]any{"threadId": "0199a213-81c0-7800-8aa1-bbab2a035a53", "prompt": "hello?"})
	if !res.IsError || mcpText(t, res) != "Session not found for thread_id: 0199a213-81c0-7800-8aa1-bbab2a035a53" {
		t.Errorf("unknown thread: %+v", res)
	}
	res = s.call("codex", map[string]any{"model": "gpt-5.5"})
	if !res.IsError || mcpText(t, res) != "Failed to parse configuration for Codex tool: missing field `prompt`" {
		t.Errorf("missing prompt: %+v", res)
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}
