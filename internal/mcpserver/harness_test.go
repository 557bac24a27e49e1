package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/mcpserver"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestMain: no goroutine of a session (tool calls, elicitations, threads) outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness is one server and one go-sdk client over in-memory pipes, with a scripted model.
type harness struct {
	t       testing.TB
	Model   *tk.Server
	Home    string
	Workdir string
	Client  *mcp.ClientSession
	Wire    *wire
	// Factory builds the one host every call's thread runs on, as gocodex's main does.
	Factory *faceopts.Factory
}

// elicitFunc answers an elicitation the way a client's user would.
type elicitFunc func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)

func newHarness(t testing.TB, cfg tk.ConfigOptions, answer elicitFunc) *harness {
	t.Helper()
	h := &harness{t: t, Model: tk.NewServer(t), Home: t.TempDir(), Workdir: t.TempDir()}
	tk.WriteConfig(t, h.Home, h.Model.URL(), cfg)
	env := func(k string) string {
		switch k {
		case "MOCK_API_KEY":
			return "test-key"
		case "CODEX_HOME":
			return h.Home
		}
		return os.Getenv(k)
	}
	ios, _, _ := iostreams.Test("")
	h.Factory = faceopts.NewFactory(ios)
	srv := mcpserver.New(mcpserver.Options{
		Calls: &faceopts.Calls{Factory: h.Factory, Base: config.LoadOptions{CodexHome: h.Home, Cwd: h.Workdir, Env: env}, Getenv: env},
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, st) }()

	opts := &mcp.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return answer(req)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	h.Wire = &wire{inner: ct, events: make(chan map[string]any, 1024)}
	cs, err := client.Connect(ctx, h.Wire, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	h.Client = cs
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Error("server did not stop after the client left")
		}
		cancel()
		_ = h.Factory.Close(context.Background())
	})
	return h
}

// call runs a tool with a deadline, failing the test on a protocol error.
func (h *harness) call(name string, args any) *mcp.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := h.Client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		h.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// wire is a client transport that records what the go-sdk client has no API for: the
// codex/event notifications and the raw elicitation params.
type wire struct {
	inner  mcp.Transport
	events chan map[string]any

	mu       sync.Mutex
	conn     mcp.Connection
	elicits  []map[string]any
	override func(json.RawMessage) json.RawMessage
}

// Kill drops the connection under the client, as a client process that dies does (the
// go-sdk client's own Close waits for calls in flight).
func (w *wire) Kill() {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

func (w *wire) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.conn = c
	w.mu.Unlock()
	return &wireConn{Connection: c, w: w}, nil
}

// Elicitations returns the params of every elicitation/create received so far.
func (w *wire) Elicitations() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]map[string]any(nil), w.elicits...)
}

// Events drains the codex/event notifications received so far.
func (w *wire) Events() []map[string]any {
	var out []map[string]any
	for {
		select {
		case ev := <-w.events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// RewriteResponses makes the client answer requests with f(result) on the wire: how a
// Codex-style client answers {"decision": …}, which the go-sdk client cannot.
func (w *wire) RewriteResponses(f func(json.RawMessage) json.RawMessage) {
	w.mu.Lock()
	w.override = f
	w.mu.Unlock()
}

type wireConn struct {
	mcp.Connection
	w *wire
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		var params map[string]any
		_ = json.Unmarshal(req.Params, &params)
		switch req.Method {
		case "codex/event":
			c.w.events <- params
			// The go-sdk client does not know the method; it has been recorded.
			return c.Read(ctx)
		case "elicitation/create":
			c.w.mu.Lock()
			c.w.elicits = append(c.w.elicits, params)
			c.w.mu.Unlock()
		}
	}
	return msg, err
}

func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.w.mu.Lock()
	f := c.w.override
	c.w.mu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok && f != nil && resp.Error == nil {
		resp.Result = f(resp.Result)
	}
	return c.Connection.Write(ctx, msg)
}

// msgType is an event notification's msg.type.
func msgType(ev map[string]any) string {
	msg, _ := ev["msg"].(map[string]any)
	s, _ := msg["type"].(string)
	return s
}

func msgTypes(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, msgType(ev))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func resultText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks: %+v", len(res.Content), res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, not text", res.Content[0])
	}
	return tc.Text
}

func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

func commandCall(callID, cmd string) tk.Response {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return tk.SSE(tk.Created(), tk.FunctionCall(callID, "exec_command", string(args)), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

func answer(text string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessage("msg_1", text), tk.Completed(tk.Usage{Input: 10, Output: 5, Total: 15}))
}
