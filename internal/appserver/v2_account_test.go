package appserver_test

import (
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// accountWorld is an app-server on the built-in OpenAI provider (which takes OpenAI auth),
// with the sign-in issuer and callback port redirected to the test's.
func accountWorld(t *testing.T, issuer *tk.OAuthIssuer, port int) *world {
	w := newWorld(t, tk.ConfigOptions{})
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte("model = \"gpt-5.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := w.getenv
	w.getenv = func(k string) string {
		switch k {
		case "GOCODEX_LOGIN_ISSUER":
			if issuer != nil {
				return issuer.URL()
			}
		case "GOCODEX_LOGIN_PORT":
			return strconv.Itoa(port)
		}
		return base(k)
	}
	w.Srv = w.server()
	return w
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The API-key account as Codex 0.169 answers it (signin.md §5): the replies, the two
// notifications in order and their shapes, auth.json, then logout and its notification.
func TestAccountAPIKeyFlow(t *testing.T) {
	w := accountWorld(t, nil, 0)
	cl := w.connect(w.Srv)
	var acct map[string]any
	cl.call("account/read", map[string]any{}, &acct)
	if got := jsonOf(t, acct); got != `{"account":null,"requiresOpenaiAuth":true,"userId":null,"workspaceRouting":null}` {
		t.Errorf("account/read signed out = %s", got)
	}
	var login map[string]any
	cl.call("account/login/start", map[string]any{"type": "apiKey", "apiKey": "sk-test"}, &login)
	if jsonOf(t, login) != `{"type":"apiKey"}` {
		t.Errorf("login = %v", login)
	}
	ns := cl.until("account/updated")
	if m := methods(ns); len(m) != 3 || m[0] != "remoteControl/status/changed" || m[1] != "account/login/completed" {
		t.Errorf("notifications = %v, want login/completed then updated", m)
	}
	if got := jsonOf(t, find(ns, "account/login/completed")[0]); got != `{"error":null,"loginId":null,"onboardingEntrypoint":null,"success":true}` {
		t.Errorf("login/completed = %s", got)
	}
	if got := jsonOf(t, find(ns, "account/updated")[0]); got != `{"authMode":"apikey","planType":null,"reason":null}` {
		t.Errorf("updated = %s", got)
	}
	data, _ := os.ReadFile(filepath.Join(w.Home, "auth.json"))
	if string(data) != "{\n  \"auth_mode\": \"apikey\",\n  \"OPENAI_API_KEY\": \"sk-test\"\n}" {
		t.Errorf("auth.json = %q", data)
	}
	cl.call("account/read", map[string]any{"refreshToken": true}, &acct)
	if got := jsonOf(t, acct["account"]); got != `{"type":"apiKey"}` {
		t.Errorf("account = %s", got)
	}
	cl.call("account/logout", nil, nil)
	if got := jsonOf(t, find(cl.until("account/updated"), "account/updated")[0]); got != `{"authMode":null,"planType":null,"reason":null}` {
		t.Errorf("updated after logout = %s", got)
	}
	if _, err := os.Stat(filepath.Join(w.Home, "auth.json")); !os.IsNotExist(err) {
		t.Error("logout left auth.json")
	}
	for params, wantCode := range map[string]int64{`{"type":"apiKey"}`: -32600, `{"type":"magic"}`: -32600} {
		var p any
		json.Unmarshal([]byte(params), &p)
		if err := cl.callErr("account/login/start", p); err == nil || err.Code != wantCode {
			t.Errorf("%s: %v", params, err)
		}
	}
	var cancel map[string]any
	cl.call("account/login/cancel", map[string]any{"loginId": "0195e7a4-7c2f-7000-8000-000000000000"}, &cancel)
	if cancel["status"] != "notFound" {
		t.Errorf("cancel unknown = %v", cancel)
	}
	// As Codex 0.169: an id that is not a UUID is refused.
	if e := cl.callErr("account/login/cancel", map[string]any{"loginId": "nope"}); e.Code != -32600 || e.Message != "invalid login id: nope" {
		t.Errorf("cancel of a malformed id: %d %s", e.Code, e.Message)
	}
}

// A ChatGPT sign-in through the app-server: the authUrl carries the client's name as
// originator; once the browser (the test) completes it, account/login/completed and
// account/updated arrive and account/read reports the ChatGPT account.
func TestAccountChatGPTBrowserFlow(t *testing.T) {
	iss := tk.NewOAuthIssuer(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	w := accountWorld(t, iss, port)
	cl := w.connect(w.Srv)
	var login struct {
		Type, LoginID, AuthURL string
	}
	cl.call("account/login/start", map[string]any{"type": "chatgpt"}, &login)
	if login.Type != "chatgpt" || login.LoginID == "" {
		t.Fatalf("login = %+v", login)
	}
	resp, err := http.Get(login.AuthURL)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	ns := cl.until("account/updated")
	done := find(ns, "account/login/completed")
	if len(done) != 1 || done[0]["success"] != true || done[0]["loginId"] != login.LoginID {
		t.Errorf("login/completed = %v", done)
	}
	if got := jsonOf(t, find(ns, "account/updated")[0]); got != `{"authMode":"chatgpt","planType":"plus","reason":null}` {
		t.Errorf("updated = %s", got)
	}
	var acct map[string]any
	cl.call("account/read", map[string]any{}, &acct)
	if got := jsonOf(t, acct["account"]); got != `{"email":"user@example.com","planType":"plus","type":"chatgpt","workspaceName":null}` || acct["userId"] != "user-abc" {
		t.Errorf("account/read = %v", acct)
	}
}

// Cancelling a pending ChatGPT sign-in ends it with login/completed {success:false}.
func TestAccountChatGPTCancel(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	w := accountWorld(t, tk.NewOAuthIssuer(t), port)
	cl := w.connect(w.Srv)
	var login struct{ LoginID string }
	cl.call("account/login/start", map[string]any{"type": "chatgpt"}, &login)
	var cancel map[string]any
	cl.call("account/login/cancel", map[string]any{"loginId": login.LoginID}, &cancel)
	if cancel["status"] != "canceled" {
		t.Errorf("cancel = %v", cancel)
	}
	done := find(cl.until("account/login/completed"), "account/login/completed")
	if len(done) != 1 || done[0]["success"] != false || done[0]["error"] != "Login cancelled" {
		t.Errorf("login/completed = %v", done)
	}
}

// The external-token sign-in: the client's ChatGPT tokens are used for turns against the
// ChatGPT backend; on a 401 the server asks the client for fresh ones with
// account/chatgptAuthTokens/refresh and goes on with them. Nothing is written to disk.
func TestAccountExternalTokens(t *testing.T) {
	model := tk.NewServer(t)
	backend := tk.NewChatGPTServer(t, model)
	w := accountWorld(t, nil, 0)
	cfg := "model = \"gpt-5.5\"\nchatgpt_base_url = \"" + backend.BaseURL() + "\"\n"
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	pemData, err := os.ReadFile(backend.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	w.roots = x509.NewCertPool()
	w.roots.AppendCertsFromPEM(pemData)
	w.Srv = w.server()
	cl := w.connect(w.Srv)
	cl.answer = func(method string, params json.RawMessage) any {
		if method == "account/chatgptAuthTokens/refresh" {
			return map[string]any{"accessToken": "ext-2", "chatgptAccountId": "acct-123", "chatgptPlanType": "pro"}
		}
		return map[string]any{"decision": "decline"}
	}
	var login map[string]any
	cl.call("account/login/start", map[string]any{"type": "chatgptAuthTokens", "accessToken": "ext-1", "chatgptAccountId": "acct-123", "chatgptPlanType": "pro"}, &login)
	if jsonOf(t, login) != `{"type":"chatgptAuthTokens"}` {
		t.Errorf("login = %v", login)
	}
	if got := jsonOf(t, find(cl.until("account/updated"), "account/updated")[0]); got != `{"authMode":"chatgptAuthTokens","planType":"pro","reason":null}` {
		t.Errorf("updated = %s", got)
	}
	backend.AcceptTokens(func(tok string) bool { return tok == "ext-2" })
	model.Enqueue(answer("EXTERNAL"))
	id := cl.startThread(map[string]any{"cwd": w.Work})
	cl.turn(id, "hi")
	ns := cl.until("turn/completed")
	if turnStatus(t, ns) != "completed" {
		t.Fatalf("turn: %v %v", methods(ns), find(ns, "error"))
	}
	var asked []string
	for _, r := range cl.requests {
		asked = append(asked, r.Method)
	}
	if len(asked) != 1 || asked[0] != "account/chatgptAuthTokens/refresh" {
		t.Errorf("server requests = %v", asked)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer ext-2" || reqs[0].Header.Get("Chatgpt-Account-Id") != "acct-123" {
		t.Errorf("model requests = %d %v", len(reqs), reqs)
	}
	if _, err := os.Stat(filepath.Join(w.Home, "auth.json")); !os.IsNotExist(err) {
		t.Errorf("external tokens were written: %v", err)
	}
}
