package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/protocol"
)

// fakeThread is an engine thread the test scripts: ops come out on ops, events go in on events.
type fakeThread struct {
	events chan protocol.EventMsg
	ops    chan protocol.Op
	done   chan struct{}
}

func newFakeThread() *fakeThread {
	t := &fakeThread{events: make(chan protocol.EventMsg, 64), ops: make(chan protocol.Op, 64), done: make(chan struct{})}
	never, ro := protocol.ApprovalOnRequest, protocol.NewReadOnlyPolicy()
	t.events <- protocol.SessionConfiguredEvent{SessionID: "thread-1", Model: "gpt-5.5", ApprovalPolicy: &never, SandboxPolicy: &ro}
	return t
}

func (t *fakeThread) ID() string { return "thread-1" }
func (t *fakeThread) Submit(op protocol.Op) (string, error) {
	if _, ok := op.(protocol.ShutdownOp); ok {
		t.events <- protocol.ShutdownCompleteEvent{}
		return "", nil
	}
	t.ops <- op
	return "", nil
}
func (t *fakeThread) NextEvent(ctx context.Context) (protocol.Event, error) {
	select {
	case m := <-t.events:
		return protocol.Event{Msg: m}, nil
	case <-ctx.Done():
		return protocol.Event{}, ctx.Err()
	}
}
func (t *fakeThread) Done() <-chan struct{} { return t.done }

// leakCheck fails the test on goroutines left after its cleanups (registered first, it runs
// last).
func leakCheck(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// client is the editor's end of a server on a fake thread.
type client struct {
	conn    *jsonrpc.Conn
	mu      sync.Mutex
	updates []map[string]any
	answer  string // the optionId to choose in permission requests
	stop    func()
}

func start(t *testing.T, th *fakeThread) *client {
	t.Helper()
	a, b := jsonrpc.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, a, Options{Version: "test", Getenv: func(string) string { return "" },
			Models: []modelInfo{{ModelID: "gpt-5.5", Name: "GPT-5.5"}},
			Start:  func(context.Context, threadSpec) (startedThread, error) { return startedThread{Thread: th}, nil }})
	}()
	c := &client{answer: "approved"}
	c.conn = jsonrpc.NewConn(b, jsonrpc.ConnOptions{
		Handle: func(ctx context.Context, conn *jsonrpc.Conn, req *jsonrpc.Request) {
			c.mu.Lock()
			answer := c.answer
			c.mu.Unlock()
			_ = conn.Reply(ctx, req.ID, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": answer}}, nil)
		},
		Notified: func(ctx context.Context, conn *jsonrpc.Conn, n *jsonrpc.Notification) {
			var p struct{ Update map[string]any }
			_ = json.Unmarshal(n.Params, &p)
			c.mu.Lock()
			c.updates = append(c.updates, p.Update)
			c.mu.Unlock()
		},
	})
	ran := make(chan struct{})
	go func() { _ = c.conn.Run(ctx); close(ran) }()
	c.stop = func() {
		cancel()
		<-served
		<-ran
	}
	t.Cleanup(c.stop)
	return c
}

func (c *client) call(t *testing.T, method string, params any) (json.RawMessage, *jsonrpc.Error) {
	t.Helper()
	raw, err := c.conn.Call(context.Background(), method, params)
	if err != nil {
		var e *jsonrpc.Error
		if ok := asError(err, &e); ok {
			return nil, e
		}
		t.Fatalf("%s: %v", method, err)
	}
	return raw, nil
}

// prompt sends a one-line prompt to the session and waits for its answer.
func (c *client) prompt(t *testing.T, id string) (json.RawMessage, *jsonrpc.Error) {
	t.Helper()
	return c.call(t, "session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
}

func asError(err error, target **jsonrpc.Error) bool {
	e, ok := err.(*jsonrpc.Error)
	if ok {
		*target = e
	}
	return ok
}

func (c *client) kinds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.updates {
		k, _ := u["sessionUpdate"].(string)
		if s, ok := u["status"].(string); ok {
			k += ":" + s
		}
		out = append(out, k)
	}
	return out
}

func openSession(t *testing.T, c *client) string {
	t.Helper()
	if _, e := c.call(t, "initialize", map[string]any{"protocolVersion": 1}); e != nil {
		t.Fatal(e)
	}
	raw, e := c.call(t, "session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	if e != nil {
		t.Fatal(e)
	}
	var r struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	_ = json.Unmarshal(raw, &r)
	if r.SessionID != "thread-1" || r.Modes.CurrentModeID != "read-only" {
		t.Fatalf("session/new = %s", raw)
	}
	return r.SessionID
}

// A prompt: the approval is asked with Codex's choices and answered into the engine, the
// command and the answer are drawn from the fold, the turn ends with end_turn.
func TestPromptAsksAndStreams(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	id := openSession(t, c)
	go func() {
		<-th.ops // the user input
		th.events <- protocol.TurnStartedEvent{TurnID: "t1"}
		th.events <- protocol.ExecApprovalRequestEvent{CallID: "c1", TurnID: "t1", Command: []string{"touch", "x"}, Cwd: "/tmp"}
		op := (<-th.ops).(protocol.ExecApprovalOp)
		if op.ID != "c1" || op.Decision.Kind != protocol.DecisionApproved {
			t.Errorf("approval op = %+v", op)
		}
		th.events <- protocol.ExecCommandBeginEvent{CallID: "c1", Command: []string{"touch", "x"}, Cwd: "/tmp"}
		th.events <- protocol.ExecCommandEndEvent{CallID: "c1", Command: []string{"touch", "x"}, AggregatedOutput: "ok\n"}
		th.events <- protocol.AgentMessageDeltaEvent{Delta: "Done"}
		th.events <- protocol.AgentMessageEvent{Message: "Done"}
		th.events <- protocol.TurnCompleteEvent{TurnID: "t1"}
	}()
	raw, e := c.prompt(t, id)
	if e != nil || !strings.Contains(string(raw), `"end_turn"`) {
		t.Fatalf("prompt = %s %v", raw, e)
	}
	got := strings.Join(c.kinds(), " ")
	want := "available_commands_update tool_call:pending tool_call_update:in_progress tool_call_update:completed agent_message_chunk"
	if got != want {
		t.Errorf("updates:\n got %s\nwant %s", got, want)
	}
}

// session/cancel interrupts the turn, and the prompt resolves cancelled.
func TestCancelResolvesCancelled(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	id := openSession(t, c)
	go func() {
		<-th.ops
		th.events <- protocol.TurnStartedEvent{TurnID: "t1"}
		if err := c.conn.Notify(context.Background(), "session/cancel", map[string]any{"sessionId": id}); err != nil {
			t.Error(err)
		}
		if _, ok := (<-th.ops).(protocol.InterruptOp); !ok {
			t.Error("no interrupt")
		}
		th.events <- protocol.TurnAbortedEvent{TurnID: "t1", Reason: protocol.AbortInterrupted}
	}()
	raw, e := c.prompt(t, id)
	if e != nil || !strings.Contains(string(raw), `"cancelled"`) {
		t.Fatalf("prompt = %s %v", raw, e)
	}
}

// Bad input gets JSON-RPC errors and the connection keeps answering.
func TestBadInputErrors(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	if _, e := c.call(t, "session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}); e == nil || e.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("before initialize: %v", e)
	}
	id := openSession(t, c)
	cases := []struct {
		method string
		params any
		code   int64
	}{
		{"session/frobnicate", map[string]any{}, jsonrpc.CodeMethodNotFound},
		{"session/prompt", map[string]any{"sessionId": "nope", "prompt": []any{}}, jsonrpc.CodeInvalidParams},
		{"session/prompt", map[string]any{"sessionId": id}, jsonrpc.CodeInvalidParams},
		{"session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "audio", "data": "x"}}}, jsonrpc.CodeInvalidParams},
		{"session/new", map[string]any{"cwd": "relative", "mcpServers": []any{}}, jsonrpc.CodeInvalidParams},
		{"session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{map[string]any{"type": "sse", "name": "s", "url": "http://x"}}}, jsonrpc.CodeInvalidParams},
		{"session/set_mode", map[string]any{"sessionId": id, "modeId": "yolo"}, jsonrpc.CodeInvalidParams},
		{"authenticate", map[string]any{"methodId": "openai-api-key"}, authRequired},
	}
	for _, tc := range cases {
		_, e := c.call(t, tc.method, tc.params)
		if e == nil || e.Code != tc.code {
			t.Errorf("%s %v: %v, want code %d", tc.method, tc.params, e, tc.code)
		}
		if tc.code == jsonrpc.CodeMethodNotFound && (e == nil || string(e.Data) != `"session/frobnicate"`) {
			t.Errorf("method not found data = %v", e)
		}
	}
	if _, e := c.call(t, "session/set_mode", map[string]any{"sessionId": id, "modeId": "full-access"}); e != nil {
		t.Fatal(e)
	}
	op := (<-th.ops).(protocol.OverrideTurnContextOp)
	if op.ApprovalPolicy.Effective() != protocol.ApprovalModeNever || op.SandboxPolicy.EffectiveMode() != protocol.SandboxDangerFullAccess {
		t.Errorf("full-access = %+v", op)
	}
}

func TestApplyUnifiedDiff(t *testing.T) {
	got, ok := applyUnifiedDiff("a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	if !ok || got != "a\nB\nc\n" {
		t.Errorf("got %q %v", got, ok)
	}
	if _, ok := applyUnifiedDiff("x\n", "@@ -1 +1 @@\n-y\n+z\n"); ok {
		t.Error("a hunk that does not fit applied")
	}
}

func TestPromptInputImages(t *testing.T) {
	in, op, err := promptInput([]contentBlock{{Type: "image", Data: "AAAA", MimeType: "image/png"}, {Type: "text", Text: "what is it?"}})
	if err != nil || op != nil || len(in) != 2 || in[0].ImageURL != "data:image/png;base64,AAAA" {
		t.Errorf("%+v %v %v", in, op, err)
	}
	if _, op, _ := promptInput([]contentBlock{{Type: "text", Text: "/compact"}}); op == nil {
		t.Error("/compact is not a command")
	}
}

// Reasoning summaries stream as agent_thought_chunk, update_plan as a plan, usage as
// usage_update; the patch's diff is the file before and after.
func TestThoughtsPlanUsageAndDiff(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	id := openSession(t, c)
	file := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	window := int64(1000)
	go func() {
		<-th.ops
		th.events <- protocol.TurnStartedEvent{TurnID: "t1"}
		th.events <- protocol.AgentReasoningDeltaEvent{Delta: "Thinking"}
		th.events <- protocol.PlanUpdateEvent{Plan: []protocol.PlanItem{{Step: "look", Status: protocol.PlanCompleted}, {Step: "fix", Status: protocol.PlanInProgress}}}
		changes := map[string]protocol.FileChange{file: {Kind: protocol.FileUpdate, UnifiedDiff: "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"}}
		th.events <- protocol.PatchApplyBeginEvent{CallID: "p1", TurnID: "t1", AutoApproved: true, Changes: changes}
		th.events <- protocol.PatchApplyEndEvent{CallID: "p1", TurnID: "t1", Success: true}
		th.events <- protocol.TokenCountEvent{Info: &protocol.TokenUsageInfo{LastTokenUsage: protocol.TokenUsage{TotalTokens: 40}, ModelContextWindow: &window}}
		th.events <- protocol.TurnCompleteEvent{TurnID: "t1"}
	}()
	if _, e := c.prompt(t, id); e != nil {
		t.Fatal(e)
	}
	c.mu.Lock()
	all, _ := json.Marshal(c.updates)
	c.mu.Unlock()
	for _, want := range []string{
		`{"content":{"text":"Thinking","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
		`{"entries":[{"content":"look","priority":"medium","status":"completed"},{"content":"fix","priority":"medium","status":"in_progress"}],"sessionUpdate":"plan"}`,
		`"kind":"edit"`, `"newText":"one\nTWO\n","oldText":"one\ntwo\n"`,
		`{"sessionUpdate":"usage_update","size":1000,"used":40}`,
	} {
		if !strings.Contains(string(all), want) {
			t.Errorf("updates lack %s:\n%s", want, all)
		}
	}
}

// A turn that ran out of context window ends max_tokens; another failed turn is the prompt's
// error.
func TestStopReasonsOfFailedTurns(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	id := openSession(t, c)
	prompt := func() (json.RawMessage, *jsonrpc.Error) { return c.prompt(t, id) }
	go func() {
		<-th.ops
		th.events <- protocol.TurnStartedEvent{TurnID: "t1"}
		th.events <- protocol.TurnCompleteEvent{TurnID: "t1", Error: &protocol.TurnError{Message: "too long", CodexErrorInfo: json.RawMessage(`"context_window_exceeded"`)}}
	}()
	if raw, e := prompt(); e != nil || !strings.Contains(string(raw), `"max_tokens"`) {
		t.Errorf("context window exceeded: %s %v", raw, e)
	}
	go func() {
		<-th.ops
		th.events <- protocol.TurnStartedEvent{TurnID: "t2"}
		th.events <- protocol.ErrorEvent{Message: "unexpected status 500"}
		th.events <- protocol.TurnCompleteEvent{TurnID: "t2"}
	}()
	if _, e := prompt(); e == nil || !strings.Contains(e.Message, "unexpected status 500") {
		t.Errorf("failed turn: %v", e)
	}
}

// A client that hangs up in the middle of a turn ends the server: the turn is interrupted.
func TestHangUpMidTurnEnds(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	a, b := jsonrpc.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), a, Options{Version: "test",
			Start: func(context.Context, threadSpec) (startedThread, error) { return startedThread{Thread: th}, nil }})
	}()
	conn := jsonrpc.NewConn(b, jsonrpc.ConnOptions{Handle: func(context.Context, *jsonrpc.Conn, *jsonrpc.Request) {}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = conn.Run(ctx); close(ran) }()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Call(ctx, "session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}); err != nil {
		t.Fatal(err)
	}
	pending, err := conn.Start(ctx, "session/prompt", map[string]any{"sessionId": "thread-1", "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	if err != nil {
		t.Fatal(err)
	}
	<-th.ops // the turn runs
	th.events <- protocol.TurnStartedEvent{TurnID: "t1"}
	_ = pending  // never answered: the client is gone
	conn.Close() // the editor goes
	if _, ok := (<-th.ops).(protocol.InterruptOp); !ok {
		t.Fatal("the turn was not interrupted")
	}
	th.events <- protocol.TurnAbortedEvent{TurnID: "t1", Reason: protocol.AbortInterrupted}
	<-served // returns (the pipe's write end went with the client: its error is no matter)
	cancel()
	<-ran
}

// session/close ends the session's thread; the session is gone.
func TestCloseEndsTheThread(t *testing.T) {
	leakCheck(t)
	th := newFakeThread()
	c := start(t, th)
	id := openSession(t, c)
	if _, e := c.call(t, "session/close", map[string]any{"sessionId": id}); e != nil {
		t.Fatal(e)
	}
	if _, e := c.call(t, "session/set_model", map[string]any{"sessionId": id, "modelId": "x"}); e == nil || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a closed session answered: %v", e)
	}
}

// authenticate with chatgpt runs the sign-in and answers once it is done; its failure is
// ACP's auth_required error.
func TestAuthenticateRunsTheSignIn(t *testing.T) {
	leakCheck(t)
	for _, fail := range []bool{false, true} {
		a, b := jsonrpc.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		signedIn := 0
		go func() {
			served <- Serve(ctx, a, Options{Version: "test", SignIn: func(context.Context) error {
				signedIn++
				if fail {
					return errors.New("the browser was closed")
				}
				return nil
			}})
		}()
		conn := jsonrpc.NewConn(b, jsonrpc.ConnOptions{Handle: func(context.Context, *jsonrpc.Conn, *jsonrpc.Request) {}})
		ran := make(chan struct{})
		go func() { _ = conn.Run(ctx); close(ran) }()
		_, err := conn.Call(ctx, "authenticate", map[string]any{"methodId": "chatgpt"})
		var e *jsonrpc.Error
		switch {
		case !fail && err != nil, fail && (!asError(err, &e) || e.Code != authRequired || !strings.Contains(e.Message, "the browser was closed")):
			t.Errorf("fail=%v: %v", fail, err)
		}
		cancel()
		<-served
		<-ran
		if signedIn != 1 {
			t.Errorf("fail=%v: signed in %d times", fail, signedIn)
		}
	}
}
