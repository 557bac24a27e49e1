package appserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// world is one isolated app-server: its own CODEX_HOME, work directory and scripted model.
type world struct {
	t      testing.TB
	Model  *tk.Server
	Home   string
	Work   string
	Srv    *appserver.Server
	getenv func(string) string
	queue  int // OutgoingQueue of servers built after it is set
	// unloadDelay is the ThreadUnloadDelay of servers built after it is set.
	unloadDelay time.Duration
	subQueue    int // SubscriberQueue of servers built after it is set
	// stallTimeout and logger are the StalledClientTimeout and Logger of servers built
	// after they are set.
	stallTimeout time.Duration
	logger       *slog.Logger
	// roots, when set, are the CAs the model client trusts (a TLS backend).
	roots *x509.CertPool
}

func newWorld(t testing.TB, co tk.ConfigOptions) *world {
	return newWorldAt(t, co, "")
}

// newWorldAt is newWorld with the model at modelURL (empty: a scripted testkit server).
func newWorldAt(t testing.TB, co tk.ConfigOptions, modelURL string) *world {
	t.Helper()
	w := &world{t: t, Home: t.TempDir(), Work: t.TempDir()}
	if modelURL == "" {
		w.Model = tk.NewServer(t)
		modelURL = w.Model.URL()
	}
	tk.WriteConfig(t, w.Home, modelURL, co)
	w.getenv = func(k string) string {
		switch k {
		case "CODEX_HOME":
			return w.Home
		case "MOCK_API_KEY":
			return "test-key"
		case "PATH":
			return "/usr/local/bin:/usr/bin:/bin"
		case "HOME":
			return w.Home
		}
		return ""
	}
	w.Srv = w.server()
	return w
}

// server builds a fresh server over the world's files (a "restart").
func (w *world) server() *appserver.Server {
	w.t.Helper()
	lo := config.LoadOptions{CodexHome: w.Home, Cwd: w.Work, Env: w.getenv}
	cfg, _, err := config.Load(lo)
	if err != nil {
		w.t.Fatalf("load config: %v", err)
	}
	tr := &http.Transport{}
	if w.roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: w.roots}
	}
	w.t.Cleanup(tr.CloseIdleConnections)
	srv := appserver.New(appserver.Options{
		Config: cfg, LoadOptions: lo, Getenv: w.getenv, Platform: &testPlatform, OutgoingQueue: w.queue,
		HTTPClient: &http.Client{Transport: tr}, ThreadUnloadDelay: w.unloadDelay, SubscriberQueue: w.subQueue,
		StalledClientTimeout: w.stallTimeout, Logger: w.logger,
		NewApp: app.New, AppOptions: app.Options{Environ: func() []string { return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + w.Home} }},
	})
	// Threads outlive their connections by the unload delay: the server's end unloads them.
	w.t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv
}

// client is one schema-checked connection with its notifications and server requests.
type client struct {
	t  testing.TB
	c  *appserver.Client
	mu sync.Mutex
	// answer decides server requests (approvals); nil declines.
	answer   func(method string, params json.RawMessage) any
	requests []serverRequest
}

type serverRequest struct {
	Method string
	Params json.RawMessage
}

func (w *world) connect(srv *appserver.Server) *client {
	w.t.Helper()
	return w.connectBuffered(srv, 1<<14)
}

// connectBuffered connects a client that buffers at most buffer unread notifications
// before it stops reading the connection.
func (w *world) connectBuffered(srv *appserver.Server, buffer int) *client {
	w.t.Helper()
	cl := &client{t: w.t}
	ctx, cancel := context.WithCancel(context.Background())
	sess := schematest.Wrap(w.t).Unschematized(v1Methods...)
	cl.c = appserver.Connect(ctx, srv, appserver.ClientOptions{Tap: sess, HandleRequest: cl.handle, Notifications: buffer})
	w.t.Cleanup(func() {
		cancel()
		cl.c.Close()
	})
	if _, err := cl.c.Initialize(ctx, clientInfo("test", "1.0")); err != nil {
		w.t.Fatalf("initialize: %v", err)
	}
	return cl
}

// v1Methods are the 0.63 methods the 0.169 schema no longer describes.
var v1Methods = []string{"newConversation", "resumeConversation", "sendUserMessage", "sendUserTurn", "interruptConversation",
	"addConversationListener", "removeConversationListener", "listConversations", "archiveConversation", "getConversationSummary",
	"gitDiffToRemote", "loginApiKey", "getAuthStatus", "getUserSavedConfig", "setDefaultModel", "userInfo", "execOneOffCommand"}

func (cl *client) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	cl.mu.Lock()
	cl.requests = append(cl.requests, serverRequest{method, params})
	f := cl.answer
	cl.mu.Unlock()
	if f == nil {
		return map[string]any{"decision": "decline"}, nil
	}
	return f(method, params), nil
}

func (cl *client) call(method string, params, result any) {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.c.Call(ctx, method, params, result); err != nil {
		cl.t.Fatalf("%s: %v", method, err)
	}
}

func (cl *client) callErr(method string, params any) *jsonrpc.Error {
	cl.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := cl.c.Call(ctx, method, params, nil)
	if err == nil {
		cl.t.Fatalf("%s succeeded, want an error", method)
	}
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		cl.t.Fatalf("%s: %v is not a JSON-RPC error", method, err)
	}
	return e
}

// until collects notifications up to and including the first with method.
func (cl *client) until(method string) []*jsonrpc.Notification {
	cl.t.Helper()
	var got []*jsonrpc.Notification
	timeout := time.After(20 * time.Second)
	for {
		select {
		case n, ok := <-cl.c.Notifications():
			if !ok {
				cl.t.Fatalf("connection ended waiting for %s; saw %v", method, methods(got))
			}
			got = append(got, n)
			if n.Method == method {
				return got
			}
		case <-timeout:
			cl.t.Fatalf("no %s; saw %v", method, methods(got))
		}
	}
}

func methods(ns []*jsonrpc.Notification) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.Method)
	}
	return out
}

func find(ns []*jsonrpc.Notification, method string) []map[string]any {
	var out []map[string]any
	for _, n := range ns {
		if n.Method == method {
			var m map[string]any
			_ = json.Unmarshal(n.Params, &m)
			out = append(out, m)
		}
	}
	return out
}

// startThread starts a thread and returns its id.
func (cl *client) startThread(params map[string]any) string {
	cl.t.Helper()
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	cl.call("thread/start", params, &res)
	cl.until("thread/started")
	return res.Thread.ID
}

// turn starts a turn with one text input and returns its id.
func (cl *client) turn(threadID, text string) string {
	cl.t.Helper()
	var res struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	cl.call("turn/start", map[string]any{"threadId": threadID, "input": []map[string]any{{"type": "text", "text": text}}}, &res)
	return res.Turn.ID
}

func answer(text string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessage("msg_1", text), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))
}

func streamed(chunks ...string) tk.Response {
	return tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", chunks...), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12}))
}

func commandCall(callID, cmd string) tk.Response {
	return tk.SSE(tk.Created(), tk.FunctionCall(callID, "exec_command", `{"cmd":"`+cmd+`"}`), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

func turnStatus(t *testing.T, ns []*jsonrpc.Notification) string {
	t.Helper()
	done := find(ns, "turn/completed")
	if len(done) == 0 {
		t.Fatalf("no turn/completed in %v", methods(ns))
	}
	return done[len(done)-1]["turn"].(map[string]any)["status"].(string)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
