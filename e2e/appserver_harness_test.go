package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schematest"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// The app-server harness every app-server e2e test uses (cases: appserver_core_test.go,
// appserver_ws_test.go). Every line the server writes goes through a schematest.Session: the first one that does not
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
	return p, waitForListener(e.t, p.stderr)
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

// procMemKiB reads a /proc/<pid>/status field (VmRSS, VmHWM) in KiB.
func procMemKiB(t testing.TB, pid int, field string) int64 {
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

// awaitSteadyRSS waits until a process's resident memory has not changed for steady polls
// in a row, interval apart (a stalled client's server has consumed the model's stream), or
// limit has passed, and returns how long it waited.
func awaitSteadyRSS(tb testing.TB, pid, steady int, interval, limit time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	last, stable := int64(-1), 0
	for stable < steady && time.Since(start) < limit {
		time.Sleep(interval)
		rss := procMemKiB(tb, pid, "VmRSS")
		if rss == last {
			stable++
		} else {
			stable = 0
		}
		last = rss
	}
	return time.Since(start)
}

// stopProcess sends sig (none when nil) and waits for the process, killing it after 10 s.
func stopProcess(cmd *exec.Cmd, sig os.Signal) {
	if sig != nil {
		cmd.Process.Signal(sig)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}
