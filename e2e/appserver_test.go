package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gocodex/gocodex/internal/appserver/schematest"
	tk "github.com/gocodex/gocodex/internal/testkit"
)

// rpcMsg is one message from the server.
type rpcMsg struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// asClient speaks the app-server protocol to one connection; every frame the server sends is
// validated against Codex 0.171's schema (the first invalid one fails the test).
type asClient struct {
	t      *testing.T
	sess   *schematest.Session
	send   func([]byte) error
	msgs   chan rpcMsg
	nextID int
	// answer decides server requests (approvals); nil declines.
	answer func(m rpcMsg) any
	// keepRequests also queues server requests for until, so sequences show where they came.
	keepRequests bool
	// traced, when not nil, gets every message until hands out, in order.
	traced *[]rpcMsg
	mu     sync.Mutex
	asked  []string
}

func newASClient(t *testing.T, send func([]byte) error) *asClient {
	return &asClient{t: t, sess: schematest.Wrap(t).Unschematized(e2eV1Methods...), send: send, msgs: make(chan rpcMsg, 1<<14)}
}

var e2eV1Methods = []string{"newConversation", "sendUserMessage", "addConversationListener", "listConversations"}

// received handles one frame from the server (called by the transport's reader).
func (c *asClient) received(frame []byte) {
	if err := c.sess.ServerSent(frame); err != nil {
		return // reported by the session
	}
	var m rpcMsg
	if err := json.Unmarshal(frame, &m); err != nil {
		c.t.Errorf("server sent non-JSON %q", frame)
		return
	}
	if m.ID != nil && m.Method != "" { // a server request
		c.mu.Lock()
		c.asked = append(c.asked, m.Method)
		f := c.answer
		c.mu.Unlock()
		var res any = map[string]any{"decision": "decline"}
		if f != nil {
			res = f(m)
		}
		b, _ := json.Marshal(map[string]any{"id": m.ID, "result": res})
		if c.keepRequests {
			c.msgs <- m
		}
		c.write(b)
		return
	}
	c.msgs <- m
}

func (c *asClient) write(b []byte) {
	c.sess.ClientSent(b)
	if err := c.send(b); err != nil {
		c.t.Errorf("send: %v", err)
	}
}

// call sends a request and waits for its answer, keeping notifications that arrive before it
// for until.
func (c *asClient) call(method string, params any) (json.RawMessage, *rpcMsg) {
	c.t.Helper()
	id := c.nextID
	c.nextID++
	b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	c.write(b)
	var held []rpcMsg
	defer func() {
		// Put back what arrived meanwhile, ahead of anything newer.
		rest := make([]rpcMsg, 0, len(held)+len(c.msgs))
		rest = append(rest, held...)
		for len(c.msgs) > 0 {
			rest = append(rest, <-c.msgs)
		}
		for _, m := range rest {
			c.msgs <- m
		}
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			if m.ID != nil && m.Method == "" && string(*m.ID) == fmt.Sprint(id) {
				if m.Error != nil {
					return nil, &m
				}
				return m.Result, nil
			}
			held = append(held, m)
		case <-timeout:
			c.t.Fatalf("no answer to %s", method)
		}
	}
}

func (c *asClient) mustCall(method string, params any, out any) {
	c.t.Helper()
	res, e := c.call(method, params)
	if e != nil {
		c.t.Fatalf("%s: %d %s", method, e.Error.Code, e.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			c.t.Fatalf("%s result: %v", method, err)
		}
	}
}

func (c *asClient) notify(method string) {
	b, _ := json.Marshal(map[string]any{"method": method})
	c.write(b)
}

// until returns the notifications up to and including the first with method.
func (c *asClient) until(method string) []rpcMsg {
	c.t.Helper()
	var got []rpcMsg
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			got = append(got, m)
			if c.traced != nil {
				*c.traced = append(*c.traced, m)
			}
			if m.Method == method {
				return got
			}
		case <-timeout:
			var ms []string
			for _, m := range got {
				ms = append(ms, m.Method)
			}
			c.t.Fatalf("no %s; saw %v", method, ms)
		}
	}
}

func (c *asClient) initialize() { c.initializeWith(nil) }

// initializeWith initializes with capabilities (nil sends none).
func (c *asClient) initializeWith(capabilities map[string]any) {
	c.t.Helper()
	p := map[string]any{"clientInfo": map[string]any{"name": "e2e", "version": "1.0"}}
	if capabilities != nil {
		p["capabilities"] = capabilities
	}
	c.mustCall("initialize", p, nil)
	c.notify("initialized")
}

func (c *asClient) startThread(params map[string]any) string {
	c.t.Helper()
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	c.mustCall("thread/start", params, &res)
	c.until("thread/started")
	return res.Thread.ID
}

func (c *asClient) turn(threadID, text string) string {
	c.t.Helper()
	var res struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	c.mustCall("turn/start", map[string]any{"threadId": threadID, "input": []map[string]any{{"type": "text", "text": text}}}, &res)
	return res.Turn.ID
}

func params(m rpcMsg) map[string]any {
	var p map[string]any
	_ = json.Unmarshal(m.Params, &p)
	return p
}

func pick(ms []rpcMsg, method string) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		if m.Method == method {
			out = append(out, params(m))
		}
	}
	return out
}

func lastTurnStatus(t *testing.T, ms []rpcMsg) string {
	t.Helper()
	done := pick(ms, "turn/completed")
	if len(done) == 0 {
		t.Fatalf("no turn/completed")
	}
	return done[len(done)-1]["turn"].(map[string]any)["status"].(string)
}

// startAppServer runs `gocodex app-server` over stdio; closing stdin (at cleanup or by
// stop) ends it.
// startAppServerOf is startAppServer for another binary (the reference Codex).
func (e *env) startAppServerOf(bin string, args ...string) (*asClient, func()) {
	e.t.Helper()
	// The binary is a parameter, never a change of the shared variable: tests run in parallel.
	cmd := exec.Command(bin, append([]string{"app-server"}, args...)...)
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	runAsUser(cmd, e.credential)
	return startStdioAppServer(e.t, cmd, e.capabilities)
}

func (e *env) startAppServer(args ...string) (*asClient, func()) {
	e.t.Helper()
	return e.startAppServerOf(binary, args...)
}

// startStdioAppServer starts cmd, an app-server over stdio, and initializes a client with
// capabilities (nil: none). stop, also run at cleanup, closes its stdin and waits for it to
// exit. Its stderr goes to cmd.Stderr too when that is set.
func startStdioAppServer(t *testing.T, cmd *exec.Cmd, capabilities map[string]any) (*asClient, func()) {
	t.Helper()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr lockedBuffer
	if cmd.Stderr != nil {
		cmd.Stderr = io.MultiWriter(cmd.Stderr, &stderr)
	} else {
		cmd.Stderr = &stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wmu sync.Mutex
	c := newASClient(t, func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := stdin.Write(append(b, '\n'))
		return err
	})
	if capabilities["experimentalApi"] == true {
		// An experimental client may hear experimental methods and fields.
		c.sess = schematest.WrapExperimental(t).Unschematized(e2eV1Methods...)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.received(append([]byte(nil), sc.Bytes()...))
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			stdin.Close()
			done := make(chan error, 1)
			go func() { <-readDone; done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("app-server did not exit after stdin closed; stderr:\n%s", stderr.String())
			}
		})
	}
	t.Cleanup(stop)
	c.initializeWith(capabilities)
	return c, stop
}

func appServerEnv(t *testing.T, approval string) *env {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: approval, SandboxMode: "danger-full-access"})
	return e
}

func TestAppServerTwoTurnsApprovalsInterrupt(t *testing.T) {
	e := appServerEnv(t, "untrusted")
	c, _ := e.startAppServer()
	id := c.startThread(map[string]any{"cwd": e.Workdir})

	// Two turns with streaming deltas.
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "Hel", "lo"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12})),
		tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_2", "wor", "ld"), tk.Completed(tk.Usage{Input: 10, Output: 2, Total: 12})))
	for _, want := range []string{"Hello", "world"} {
		c.turn(id, "say "+want)
		got := c.until("turn/completed")
		var text string
		for _, d := range pick(got, "item/agentMessage/delta") {
			text += d["delta"].(string)
		}
		if text != want || len(pick(got, "item/agentMessage/delta")) != 2 {
			t.Errorf("deltas %q, want %q in two pieces", text, want)
		}
	}

	// Approvals: accepted, declined, accepted for the session.
	for _, tc := range []struct{ decision, file string }{{"accept", "a"}, {"decline", "b"}, {"acceptForSession", "c"}} {
		dec := tc.decision
		c.answer = func(rpcMsg) any { return map[string]any{"decision": dec} }
		e.Model.Enqueue(commandCall("call_"+tc.file, "touch "+tc.file), answer("done"))
		c.turn(id, "touch "+tc.file)
		got := c.until("turn/completed")
		if len(pick(got, "serverRequest/resolved")) != 1 {
			t.Errorf("%s: no serverRequest/resolved", tc.decision)
		}
		_, err := os.Stat(filepath.Join(e.Workdir, tc.file))
		if ran := err == nil; ran != (tc.decision != "decline") {
			t.Errorf("%s: command ran = %v", tc.decision, ran)
		}
	}
	asked := len(c.asked)
	e.Model.Enqueue(commandCall("call_c2", "touch c"), answer("again"))
	c.turn(id, "touch c again")
	c.until("turn/completed")
	if len(c.asked) != asked {
		t.Errorf("asked again after acceptForSession")
	}

	// Interrupt.
	e.Model.Enqueue(tk.Stall(2, tk.Created(), tk.TextDelta("thinking"), tk.Completed(tk.Usage{})))
	turn := c.turn(id, "long")
	c.until("item/agentMessage/delta")
	c.mustCall("turn/interrupt", map[string]any{"threadId": id, "turnId": turn}, nil)
	if s := lastTurnStatus(t, c.until("turn/completed")); s != "interrupted" {
		t.Errorf("status after interrupt = %s", s)
	}

	// command/exec.
	var ex struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
	}
	c.mustCall("command/exec", map[string]any{"command": []string{"echo", "hi"}}, &ex)
	if ex.ExitCode != 0 || ex.Stdout != "hi\n" {
		t.Errorf("command/exec = %+v", ex)
	}
}

func TestAppServerResumeAfterRestartForkListArchive(t *testing.T) {
	e := appServerEnv(t, "never")
	c, stop := e.startAppServer()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	e.Model.Enqueue(answer("noted"))
	c.turn(id, "remember the word kumquat")
	c.until("turn/completed")
	stop()

	c2, _ := e.startAppServer()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	c2.mustCall("thread/list", map[string]any{}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id {
		t.Fatalf("thread/list = %+v", list.Data)
	}
	var resumed struct {
		Thread struct {
			Turns []any `json:"turns"`
		} `json:"thread"`
	}
	c2.mustCall("thread/resume", map[string]any{"threadId": id}, &resumed)
	if len(resumed.Thread.Turns) != 1 {
		t.Errorf("resumed turns = %d", len(resumed.Thread.Turns))
	}
	e.Model.Enqueue(answer("kumquat"))
	c2.turn(id, "which word?")
	c2.until("turn/completed")
	reqs := e.Model.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "remember the word kumquat") {
		t.Errorf("the resumed thread's request lacks its history")
	}

	var forked struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	c2.mustCall("thread/fork", map[string]any{"threadId": id}, &forked)
	e.Model.Enqueue(answer("forked"))
	c2.turn(forked.Thread.ID, "in the fork")
	c2.until("turn/completed")
	c2.mustCall("thread/list", map[string]any{}, &list)
	if len(list.Data) != 2 {
		t.Errorf("after fork, %d threads listed", len(list.Data))
	}
	c2.mustCall("thread/archive", map[string]any{"threadId": id}, nil)
	c2.mustCall("thread/list", map[string]any{}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != forked.Thread.ID {
		t.Errorf("after archive: %+v", list.Data)
	}
}

func TestAppServerV1Conversation(t *testing.T) {
	e := appServerEnv(t, "never")
	c, _ := e.startAppServer()
	var conv struct {
		ConversationID string `json:"conversationId"`
	}
	c.mustCall("newConversation", map[string]any{"cwd": e.Workdir}, &conv)
	c.mustCall("addConversationListener", map[string]any{"conversationId": conv.ConversationID}, nil)
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "v1 ", "answer"), tk.Completed(tk.Usage{Input: 3, Output: 2, Total: 5})))
	c.mustCall("sendUserMessage", map[string]any{"conversationId": conv.ConversationID, "items": []any{map[string]any{"type": "text", "data": map[string]any{"text": "hi"}}}}, nil)
	got := c.until("codex/event/task_complete")
	var seen []string
	for _, m := range got {
		seen = append(seen, m.Method)
	}
	for _, want := range []string{"codex/event/task_started", "codex/event/user_message", "codex/event/agent_message_delta", "codex/event/agent_message", "codex/event/token_count"} {
		if !contains(seen, want) {
			t.Errorf("no %s in %v", want, seen)
		}
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	c.mustCall("listConversations", map[string]any{}, &list)
	if len(list.Items) != 1 {
		t.Errorf("listConversations = %v", list.Items)
	}
}

var wsAddr = regexp.MustCompile(`listening on: ws://(\S+)`)

func TestAppServerWebsocket(t *testing.T) {
	e := appServerEnv(t, "never")
	cmd := exec.Command(binary, "app-server", "--listen", "ws://127.0.0.1:0")
	cmd.Dir = e.Workdir
	cmd.Env = e.environ()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProcess(cmd, os.Interrupt) })
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := wsAddr.FindStringSubmatch(sc.Text()); m != nil {
				addrCh <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var addr string
	select {
	case addr = <-addrCh:
	case <-time.After(20 * time.Second):
		t.Fatal("websocket server did not report its address")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ws, _, err := websocket.Dial(ctx, "ws://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	t.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, "") })
	c := newASClient(t, func(b []byte) error { return ws.Write(ctx, websocket.MessageText, b) })
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			c.received(b)
		}
	}()
	c.initialize()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	e.Model.Enqueue(tk.SSE(tk.Created(), tk.AssistantMessageStream("msg_1", "over ", "websocket"), tk.Completed(tk.Usage{Input: 3, Output: 2, Total: 5})))
	c.turn(id, "hi")
	got := c.until("turn/completed")
	if d := pick(got, "item/agentMessage/delta"); len(d) != 2 {
		t.Errorf("deltas over websocket = %v", d)
	}
	if s := lastTurnStatus(t, got); s != "completed" {
		t.Errorf("status = %s", s)
	}
}

func patchCall(callID, file string) tk.Response {
	return tk.SSE(tk.Created(), tk.CustomToolCall(callID, "apply_patch", "*** Begin Patch\n*** Add File: "+file+"\n+hello\n*** End Patch\n"), tk.Completed(tk.Usage{Input: 5, Output: 1, Total: 6}))
}

// Patches under a read-only sandbox ask: item/fileChange/requestApproval for v2 clients,
// applyPatchApproval for v1 ones.
func TestAppServerPatchApprovals(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "on-request", SandboxMode: "read-only"})
	c, _ := e.startAppServer()
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	c.answer = func(m rpcMsg) any {
		if m.Method != "item/fileChange/requestApproval" {
			t.Errorf("server request %s", m.Method)
		}
		return map[string]any{"decision": "accept"}
	}
	e.Model.Enqueue(patchCall("call_1", "v2.txt"), answer("patched"))
	c.turn(id, "patch")
	got := c.until("turn/completed")
	if len(pick(got, "serverRequest/resolved")) != 1 {
		t.Errorf("no serverRequest/resolved")
	}
	if b, err := os.ReadFile(filepath.Join(e.Workdir, "v2.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("v2.txt = %q, %v", b, err)
	}

	var conv struct {
		ConversationID string `json:"conversationId"`
	}
	c.mustCall("newConversation", map[string]any{"cwd": e.Workdir}, &conv)
	c.mustCall("addConversationListener", map[string]any{"conversationId": conv.ConversationID}, nil)
	c.answer = func(m rpcMsg) any {
		if m.Method != "applyPatchApproval" {
			t.Errorf("server request %s, want applyPatchApproval", m.Method)
		}
		return map[string]any{"decision": "approved"}
	}
	e.Model.Enqueue(patchCall("call_2", "v1.txt"), answer("patched"))
	c.mustCall("sendUserMessage", map[string]any{"conversationId": conv.ConversationID, "items": []any{map[string]any{"type": "text", "data": map[string]any{"text": "patch"}}}}, nil)
	c.until("codex/event/task_complete")
	if b, err := os.ReadFile(filepath.Join(e.Workdir, "v1.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("v1.txt = %q, %v", b, err)
	}
}

// command/exec runs under the configured sandbox (read-only here) unless the request names
// another policy.
func TestAppServerCommandExecSandbox(t *testing.T) {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{ApprovalPolicy: "never", SandboxMode: "read-only"})
	c, _ := e.startAppServer()
	var ex struct {
		ExitCode int `json:"exitCode"`
	}
	c.mustCall("command/exec", map[string]any{"command": []string{"touch", "denied"}, "cwd": e.Workdir}, &ex)
	if _, err := os.Stat(filepath.Join(e.Workdir, "denied")); err == nil || ex.ExitCode == 0 {
		t.Errorf("read-only sandbox let command/exec write (exit %d)", ex.ExitCode)
	}
	c.mustCall("command/exec", map[string]any{"command": []string{"touch", "allowed"}, "cwd": e.Workdir,
		"sandboxPolicy": map[string]any{"type": "workspaceWrite", "writableRoots": []string{}, "networkAccess": false}}, &ex)
	if _, err := os.Stat(filepath.Join(e.Workdir, "allowed")); err != nil || ex.ExitCode != 0 {
		t.Errorf("workspace-write command/exec failed (exit %d): %v", ex.ExitCode, err)
	}
}
