package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/gocodex/gocodex/internal/appserver/schematest"
)

// App-server over websocket: handshake, probes, bad input, capability and signed tokens,
// browsers turned away, no listener beyond loopback without auth.

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
	// recv returns the next answer (notifications, such as the remoteControl/status/changed
	// that follows initialize, are checked against the schema and skipped).
	recv := func() map[string]any {
		t.Helper()
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s.ServerSent(b)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("frame is not JSON: %q", b)
			}
			if _, isNote := m["method"]; isNote && m["id"] == nil {
				continue
			}
			return m
		}
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
	send(`nope{`) // logged, not answered, as by Codex 0.169
	send(`{"id":2,"method":"made/up","params":{}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(2) {
		t.Errorf("unknown method: %v", m)
	}
	// Codex takes a 10 MiB message and refuses one over its 16 MiB limit (it drops the
	// connection; we answer and keep it).
	send(`{"id":3,"method":"initialize","params":{"clientInfo":{"name":"` + strings.Repeat("z", 10<<20) + `","version":"1"}}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(3) || m["error"].(map[string]any)["message"] != "Already initialized" {
		t.Errorf("10 MiB frame: %v", m)
	}
	send(`{"id":5,"method":"initialize","params":{"clientInfo":{"name":"` + strings.Repeat("z", 17<<20) + `","version":"1"}}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(5) || !strings.Contains(m["error"].(map[string]any)["message"].(string), "exceeds the limit") {
		t.Errorf("17 MiB frame: %v", m)
	}
	send(`{"id":4,"method":"initialize","params":{"clientInfo":{"name":"n","version":"1"}}}`)
	if m := recv(); code(m) != -32600 || m["id"] != float64(4) {
		t.Errorf("still serving: %v", m)
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
