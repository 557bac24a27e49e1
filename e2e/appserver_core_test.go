package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// This file holds the app-server harness every app-server e2e test uses, and the core
// cases: handshake over stdio and websocket, bad input, probes, token auth, start-up time.
// Every line the server writes goes through a schematest.Session: the first one that does not
// validate against Codex 0.169's schema fails the test.

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// appServerProc is a running `gocodex app-server` process.
type appServerProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *lockedBuffer
	// Session validates every server line (and learns request methods from client lines).
	Session *schematest.Session
	// listener: the process serves websocket clients and ends on SIGTERM, not on stdin EOF.
	listener bool
}

// startAppServerProc starts the binary with `app-server args...` in the env's world.
func (e *env) startAppServerProc(args ...string) *appServerProc {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	cmd := exec.CommandContext(ctx, binary, append([]string{"app-server"}, args...)...)
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	p := &appServerProc{t: e.t, cmd: cmd, stdin: stdin, stdout: stdout, stderr: &lockedBuffer{}, Session: schematest.Wrap(e.t)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		// Closing stdin ends a stdio server; a websocket server ends on SIGTERM.
		stdin.Close()
		if p.listener {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cancel()
				<-done
			}
		}
		cancel()
		if e.t.Failed() {
			e.t.Logf("app-server stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// rawAppServer drives the stdio transport line by line, for tests that send bad input.
type rawAppServer struct {
	*appServerProc
	in    io.Writer
	lines chan string
}

func (e *env) startRawAppServer(args ...string) *rawAppServer {
	e.t.Helper()
	p := e.startAppServerProc(args...)
	r := &rawAppServer{appServerProc: p, in: p.Session.WrapWriter(p.stdin), lines: make(chan string, 1024)}
	out := p.Session.WrapReader(p.stdout)
	go func() { // ends when the process's stdout closes
		defer close(r.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	return r
}

// waitStderr waits for text to appear on the server's stderr (it arrives through a pipe).
func (p *appServerProc) waitStderr(text string) {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stderr.String(), text) {
		if time.Now().After(deadline) {
			p.t.Fatalf("stderr never showed %q:\n%s", text, p.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *rawAppServer) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

// next returns the next server line, decoded.
func (r *rawAppServer) next() map[string]any {
	r.t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("app-server closed its output\nstderr: %s", r.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			r.t.Fatalf("line is not JSON: %q", line)
		}
		return m
	case <-time.After(30 * time.Second):
		r.t.Fatalf("no line from app-server in 30s\nstderr: %s", r.stderr.String())
	}
	return nil
}

// response skips notifications until the message answering id.
func (r *rawAppServer) response(id any) map[string]any {
	r.t.Helper()
	want, _ := json.Marshal(id)
	for {
		m := r.next()
		if got, _ := json.Marshal(m["id"]); string(got) == string(want) && m["method"] == nil {
			return m
		}
	}
}

func (r *rawAppServer) initialize() map[string]any {
	r.t.Helper()
	r.send(`{"id":"init","method":"initialize","params":{"clientInfo":{"name":"codex_vscode","title":"VS Code","version":"1.2.3"}}}`)
	res := r.response("init")
	r.send(`{"method":"initialized"}`)
	return res
}

// appServerClient connects a Go client to a fresh app-server over stdio; every frame is
// validated. handle answers server requests (nil: -32601).
func (e *env) appServerClient(handle func(ctx context.Context, method string, params json.RawMessage) (any, error), args ...string) *appserver.Client {
	e.t.Helper()
	p := e.startAppServerProc(args...)
	ctx, cancel := context.WithCancel(context.Background())
	f := jsonrpc.NewLineFramer(p.stdout, p.stdin, p.stdin, 64<<20)
	c := appserver.NewClient(ctx, f, appserver.ClientOptions{Tap: p.Session, HandleRequest: handle})
	e.t.Cleanup(func() {
		cancel()
		c.Close()
	})
	return c
}

// wsAppServer starts `app-server --listen ws://127.0.0.1:0 args...` and returns its address
// (host:port) as printed on stderr.
func (e *env) wsAppServer(args ...string) (*appServerProc, string) {
	e.t.Helper()
	p := e.startAppServerProc(append([]string{"--listen", "ws://127.0.0.1:0"}, args...)...)
	p.listener = true
	re := regexp.MustCompile(`listening on: ws://([0-9.:]+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(p.stderr.String()); m != nil {
			return p, m[1]
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("websocket app-server did not report its address\nstderr: %s", p.stderr.String())
	return nil, ""
}

// dialWS opens a validated client connection to a websocket app-server.
func dialWS(t *testing.T, addr, token string) (*appserver.Client, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	opts := &websocket.DialOptions{}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	ws, resp, err := websocket.Dial(ctx, "ws://"+addr+"/", opts)
	if err != nil {
		cancel()
		return nil, resp, err
	}
	c := appserver.NewClient(ctx, appserver.WebsocketFramer(ws, 64<<20), appserver.ClientOptions{Tap: schematest.Wrap(t)})
	t.Cleanup(func() {
		cancel()
		c.Close()
	})
	return c, resp, nil
}

var initParams = appserver.InitializeParams{ClientInfo: &appserver.ClientInfo{Name: "codex_vscode", Version: "1.2.3"}}

func checkInitialize(t *testing.T, e *env, res appserver.InitializeResponse) {
	t.Helper()
	if !strings.HasPrefix(res.UserAgent, "codex_vscode/0.169.0 (") || !strings.Contains(res.UserAgent, "(codex_vscode; 1.2.3) gocodex/") {
		t.Errorf("userAgent = %q", res.UserAgent)
	}
	if res.CodexHome != e.CodexHome || res.PlatformFamily != "unix" || res.PlatformOs != "linux" {
		t.Errorf("initialize = %+v", res)
	}
}

func TestAppServerHandshakeStdio(t *testing.T) {
	e := newEnv(t)
	c := e.appServerClient(nil)
	ctx := context.Background()
	err := c.Call(ctx, "thread/loaded/list", map[string]any{}, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != -32600 || e.Message != "Not initialized" {
		t.Fatalf("before initialize: %v", err)
	}
	res, err := c.Initialize(ctx, initParams)
	if err != nil {
		t.Fatal(err)
	}
	checkInitialize(t, e, res)
	err = c.Call(ctx, "initialize", initParams, nil)
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != -32600 || e.Message != "Already initialized" {
		t.Fatalf("second initialize: %v", err)
	}
}

func TestAppServerHandshakeWebsocket(t *testing.T) {
	e := newEnv(t)
	_, addr := e.wsAppServer()
	for i := range 2 { // two clients, each with its own handshake
		c, _, err := dialWS(t, addr, "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Initialize(context.Background(), initParams)
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		checkInitialize(t, e, res)
	}
	for _, path := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", path, resp.StatusCode)
		}
	}
}

func TestAppServerWebsocketToken(t *testing.T) {
	e := newEnv(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr := e.wsAppServer("--ws-auth", "capability-token", "--ws-token-file", tokenFile)
	for _, tc := range []struct{ token, body string }{{"", "missing websocket bearer token"}, {"wrong", "invalid websocket bearer token"}} {
		_, resp, err := dialWS(t, addr, tc.token)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("dial with token %q: %v %v, want 401", tc.token, resp, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != tc.body {
			t.Errorf("401 body %q, want %q", body, tc.body)
		}
	}
	c, _, err := dialWS(t, addr, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), initParams); err != nil {
		t.Fatal(err)
	}
	// Probes need no token.
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("readyz = %d", resp.StatusCode)
	}
}

// Browsers are turned away, as by Codex: any request with an Origin header gets 403, even
// with the token, so a web page cannot drive (or find) a local agent. Probes take GET only.
func TestAppServerWebsocketRejectsBrowsers(t *testing.T) {
	e := newEnv(t)
	_, addr := e.wsAppServer()
	ctx := context.Background()
	for _, origin := range []string{"http://evil.example", "http://" + addr, "null"} {
		_, resp, err := websocket.Dial(ctx, "ws://"+addr+"/", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("dial with Origin %s: %v %v, want 403", origin, resp, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/healthz", nil)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("probe with Origin: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Post("http://"+addr+"/readyz", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz = %d, want 405", resp.StatusCode)
	}
}

// Beyond loopback a token is required: the server refuses to start (before binding).
func TestAppServerWebsocketRefusesOffLoopbackWithoutAuth(t *testing.T) {
	e := newEnv(t)
	r := e.run("", "app-server", "--listen", "ws://0.0.0.0:0")
	want := "refusing to start non-loopback websocket listener 0.0.0.0:0 without auth; configure `--ws-auth capability-token` or `--ws-auth signed-bearer-token`"
	if r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Fatalf("exit %d, stderr %q; want failure with %q", r.Code, r.Stderr, want)
	}
}

func TestAppServerBadInputKeepsServing(t *testing.T) {
	e := newEnv(t)
	r := e.startRawAppServer()
	r.initialize()
	ping := func(id int) {
		t.Helper()
		// initialize again is the cheapest request that always answers the same way.
		r.send(fmt.Sprintf(`{"id":%d,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}}`, id))
		if got := r.response(id); got["error"].(map[string]any)["message"] != "Already initialized" {
			t.Fatalf("connection stopped serving: %v", got)
		}
	}
	errOf := func(m map[string]any) (float64, string) {
		t.Helper()
		e, ok := m["error"].(map[string]any)
		if !ok {
			t.Fatalf("want an error, got %v", m)
		}
		return e["code"].(float64), e["message"].(string)
	}

	r.send(`this is not json{`)
	m := r.next()
	if code, _ := errOf(m); code != -32700 || m["id"] != nil {
		t.Errorf("malformed line: %v", m)
	}
	ping(100)

	r.send(`{"id":1,"method":"no/such/method","params":{}}`)
	if code, msg := errOf(r.response(1)); code != -32601 || !strings.Contains(msg, "no/such/method") {
		t.Errorf("unknown method: %v %q", code, msg)
	}
	ping(101)

	r.send(`{"id":2,"method":"thread/read","params":{"threadId":5}}`)
	if code, msg := errOf(r.response(2)); code != -32602 || !strings.Contains(msg, "threadId") {
		t.Errorf("wrong params: %v %q", code, msg)
	}
	ping(104)

	r.send(`{"id":12345,"result":{"decision":"accept"}}`) // a response to a request never sent
	ping(102)
	r.waitStderr("response to unknown request id 12345")

	big := `{"id":3,"method":"initialize","params":{"clientInfo":{"name":"` + strings.Repeat("x", 10<<20) + `","version":"1"}}}`
	r.send(big)
	if code, msg := errOf(r.response(3)); code != -32600 || !strings.Contains(msg, "exceeds the limit") {
		t.Errorf("10 MiB line: %v %q", code, msg)
	}
	ping(103)

	// Wrong params of initialize itself, on a fresh connection.
	r2 := e.startRawAppServer()
	r2.send(`{"id":"p","method":"initialize","params":{"clientInfo":5}}`)
	if code, msg := errOf(r2.response("p")); code != -32602 || !strings.Contains(msg, "clientInfo") {
		t.Errorf("wrong params: %v %q", code, msg)
	}
	r2.initialize()
}

// A client that pipelines everything and closes its input still gets every answer.
func TestAppServerAnswersBeforeExitOnEOF(t *testing.T) {
	e := newEnv(t)
	in := `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}` + "\n" +
		`{"method":"initialized"}` + "\n" +
		`{"id":2,"method":"nope","params":{}}` + "\n"
	res := e.run(in, "app-server")
	lines := jsonl(t, res.Stdout)
	if res.Code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, lines %v\nstderr: %s", res.Code, lines, res.Stderr)
	}
	s := schematest.Wrap(t)
	for _, l := range strings.Split(strings.TrimSpace(in), "\n") {
		s.ClientSent([]byte(l))
	}
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		s.ServerSent([]byte(l))
	}
}

// BenchmarkAppServerInitialize is spawn → initialize response over stdio (Codex 0.169: about
// 260 ms here; target < 20 ms). It reports the median.
func BenchmarkAppServerInitialize(b *testing.B) {
	e := benchEnv(b)
	req := []byte(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"}}}` + "\n")
	var walls []time.Duration
	for b.Loop() {
		cmd := exec.Command(binary, "app-server")
		cmd.Dir = e.Workdir
		cmd.Env = e.environ()
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		stdin.Write(req)
		line, err := bufio.NewReader(stdout).ReadString('\n')
		walls = append(walls, time.Since(start))
		if err != nil || !strings.Contains(line, `"userAgent"`) {
			b.Fatalf("initialize: %q %v", line, err)
		}
		stdin.Close()
		cmd.Wait()
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
}

// Over websocket the same bad input gets the same answers, one frame each, and the
// connection keeps serving; a 10 MiB frame is read through, not buffered.
func TestAppServerWebsocketBadInput(t *testing.T) {
	e := newEnv(t)
	_, addr := e.wsAppServer()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(-1)
	s := schematest.Wrap(t)
	send := func(frame string) {
		t.Helper()
		s.ClientSent([]byte(frame))
		if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s.ServerSent(b)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("frame is not JSON: %q", b)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		t.Helper()
		e, ok := m["error"].(map[string]any)
		if !ok {
			t.Fatalf("want an error, got %v", m)
		}
		return e["code"].(float64)
	}
	send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"method":"initialized"}`)
	send(`nope{`)
	if m := recv(); code(m) != -32700 {
		t.Errorf("malformed frame: %v", m)
	}
	send(`{"id":2,"method":"made/up","params":{}}`)
	if m := recv(); code(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	send(`{"id":3,"method":"initialize","params":{"clientInfo":{"name":"` + strings.Repeat("z", 10<<20) + `","version":"1"}}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(3) {
		t.Errorf("10 MiB frame: %v", m)
	}
	send(`{"id":4,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(4) {
		t.Errorf("still serving: %v", m)
	}
}

// converse runs bin's app-server and sends each request in turn, waiting for its answer;
// notifications are left out. The answers come back in order.
func (e *env) converse(bin string, requests []string) []map[string]any {
	e.t.Helper()
	saved := binary
	binary = bin
	r := e.startRawAppServer()
	binary = saved
	var answers []map[string]any
	for _, req := range requests {
		var head struct {
			ID any `json:"id"`
		}
		if err := json.Unmarshal([]byte(req), &head); err != nil {
			e.t.Fatal(err)
		}
		r.send(req)
		answers = append(answers, r.response(head.ID))
	}
	return answers
}

// The handshake answers of our binary and of Codex 0.169 agree: the same errors, the same
// result fields, the user agent's leading `<originator>/<version> (`.
func TestAppServerHandshakeMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	requests := []string{
		`{"id":1,"method":"initialize","params":{}}`,
		`{"id":2,"method":"initialize","params":{"clientInfo":{"version":"1"}}}`,
		`{"id":3,"method":"initialize","params":{"clientInfo":{"name":"codex_vscode","title":null,"version":"1.2.3"},"capabilities":{"experimentalApi":false,"optOutNotificationMethods":["remoteControl/status/changed","configWarning"]}}}`,
		`{"id":4,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}}`,
		`{"id":"five","method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}}`,
	}
	normalize := func(answers []map[string]any) []map[string]any {
		for _, a := range answers {
			if res, ok := a["result"].(map[string]any); ok {
				ua, _ := res["userAgent"].(string)
				res["userAgent"], _, _ = strings.Cut(ua, " ")
			}
		}
		return answers
	}
	e := newEnv(t)
	ours := normalize(e.converse(binary, requests))
	theirs := normalize(e.converse(ref, requests))
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("handshake answers (-codex +ours):\n%s", diff)
	}
}

// procMemKiB reads a /proc/<pid>/status field (VmRSS, VmHWM) in KiB.
func procMemKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kib int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kib)
			return kib
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// A client that stops reading while a turn streams 300,000 deltas: the server stops pulling
// the thread's events once the connection's queue is full, the engine coalesces the deltas
// it holds, and memory stays bounded; when the client reads again, every character arrives,
// then turn/completed.
func TestAppServerSlowClientBackpressure(t *testing.T) {
	const deltas = 300_000
	e := newEnv(t)
	chunks := make([]string, deltas)
	for i := range chunks {
		chunks[i] = "tok "
	}
	e.Model.SetDefault(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", chunks...), tk.Completed(tk.Usage{Input: 1, Output: deltas, Total: deltas + 1})))
	p := e.startAppServerProc()
	in := p.Session.WrapWriter(p.stdin)
	sc := bufio.NewScanner(p.Session.WrapReader(p.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("app-server output ended: %v\nstderr: %s", sc.Err(), p.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		return m
	}
	var text strings.Builder
	var notes int
	collect := func(m map[string]any) {
		if m["method"] == "item/agentMessage/delta" {
			notes++
			text.WriteString(m["params"].(map[string]any)["delta"].(string))
		}
	}
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"slow","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":1,"method":"thread/start","params":{"cwd":`+jsonString(e.Workdir)+`}}`)
	var threadID string
	for threadID == "" {
		if m := next(); m["id"] == float64(1) {
			threadID = m["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
		}
	}
	fmt.Fprintf(in, `{"id":2,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"hi"}]}}`+"\n", threadID)
	for m := next(); m["id"] != float64(2); m = next() {
		collect(m)
	}

	// Stop reading until the server's memory settles (the model's stream is consumed).
	pid := p.cmd.Process.Pid
	last, stable := int64(-1), 0
	for stable < 10 {
		time.Sleep(50 * time.Millisecond)
		rss := procMemKiB(t, pid, "VmRSS")
		if rss == last {
			stable++
		} else {
			stable = 0
		}
		last = rss
	}
	peak := procMemKiB(t, pid, "VmHWM")

	for {
		m := next()
		collect(m)
		if m["method"] == "turn/completed" {
			break
		}
	}
	if want := strings.Repeat("tok ", deltas); text.String() != want {
		t.Errorf("streamed text: %d bytes, want %d", text.Len(), len(want))
	}
	t.Logf("%d deltas arrived as %d notifications; peak RSS while the client was not reading: %.1f MiB, after: %.1f MiB", deltas, notes, float64(peak)/1024, float64(procMemKiB(t, pid, "VmHWM"))/1024)
	// The engine alone peaks at 40-80 MiB parsing this stream (a client that reads all the
	// time sees the same). Unbounded, the server would also hold the 300,000 notifications
	// (the engine only coalesces when its reader lags): ~70 MB of JSON more.
	if peak > 120<<10 {
		t.Errorf("peak RSS %.1f MiB while the client was not reading: the server buffered without bound", float64(peak)/1024)
	}
}

// A config.toml that does not parse does not stop the server, as with Codex: it runs on
// defaults and each client hears why right after initialize.
func TestAppServerInvalidConfigWarns(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"a\"\nmodel = \"b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.startRawAppServer()
	if res := r.initialize(); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	m := r.next()
	params, _ := m["params"].(map[string]any)
	if m["method"] != "configWarning" || params["summary"] != "Invalid configuration; using defaults." ||
		params["path"] != filepath.Join(e.CodexHome, "config.toml") || !strings.Contains(params["details"].(string), ":2:1: ") {
		t.Fatalf("after initialize: %v", m)
	}
}

// --ws-auth signed-bearer-token: HS256 JWTs signed with the shared secret are let in.
func TestAppServerWebsocketSignedBearerToken(t *testing.T) {
	e := newEnv(t)
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("shared-secret-of-at-least-32-bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr := e.wsAppServer("--ws-auth", "signed-bearer-token", "--ws-shared-secret-file", secretFile, "--ws-audience", "codex-app-server")
	sign := func(secret string, claims map[string]any) string {
		enc := func(v any) string {
			b, _ := json.Marshal(v)
			return base64.RawURLEncoding.EncodeToString(b)
		}
		head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(head))
		return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	}
	exp := time.Now().Add(time.Minute).Unix()
	for _, bad := range []string{
		sign("other-secret", map[string]any{"exp": exp, "aud": "codex-app-server"}),
		sign("shared-secret-of-at-least-32-bytes", map[string]any{"exp": exp, "aud": "elsewhere"}),
	} {
		if _, resp, err := dialWS(t, addr, bad); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("bad token let in: %v %v", resp, err)
		}
	}
	c, _, err := dialWS(t, addr, sign("shared-secret-of-at-least-32-bytes", map[string]any{"exp": exp, "aud": "codex-app-server"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), initParams); err != nil {
		t.Fatal(err)
	}
}
