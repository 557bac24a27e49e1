package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// chatgptWorld is an exec environment signed in with ChatGPT: a scripted issuer, the ChatGPT
// backend over TLS in front of the scripted model, and auth.json as a sign-in leaves it.
type chatgptWorld struct {
	*env
	issuer  *tk.OAuthIssuer
	backend *tk.ChatGPTServer
	access  string
	refresh string
	id      string
}

func newChatGPTWorld(t *testing.T, accessLifetime time.Duration) *chatgptWorld {
	e := newEnv(t)
	w := &chatgptWorld{env: e, issuer: tk.NewOAuthIssuer(t)}
	w.backend = tk.NewChatGPTServer(t, e.Model)
	w.issuer.SetAccessLifetime(accessLifetime)
	w.id, w.access, w.refresh = w.issuer.IssueTokens()
	w.issuer.SetAccessLifetime(time.Hour)
	cfg := "model = \"gpt-5.5\"\nchatgpt_base_url = \"" + w.backend.BaseURL() + "\"\n"
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	w.writeAuth(t)
	e.ExtraEnv = append(e.ExtraEnv, "CODEX_CA_CERTIFICATE="+w.backend.CAFile)
	return w
}

func (w *chatgptWorld) writeAuth(t *testing.T) {
	auth := map[string]any{
		"auth_mode": "chatgpt", "OPENAI_API_KEY": nil,
		"tokens": map[string]any{"id_token": w.id, "access_token": w.access, "refresh_token": w.refresh,
			"oauth_provenance": map[string]any{"issuer": w.issuer.URL(), "client_id": "app_EMoamEEZ73f0CkXaXp7hrann"},
			"account_id":       "acct-123"},
		"last_refresh": "2026-11-24T22:30:32.829213Z",
	}
	data, _ := json.MarshalIndent(auth, "", "  ")
	if err := os.WriteFile(w.authPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (w *chatgptWorld) authPath() string { return filepath.Join(w.CodexHome, "auth.json") }

func (w *chatgptWorld) storedTokens(t *testing.T) map[string]any {
	data, err := os.ReadFile(w.authPath())
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("auth.json: %v\n%s", err, data)
	}
	return f["tokens"].(map[string]any)
}

// A turn signed in with ChatGPT goes where Codex 0.169 sends it (signin.md §2): the routing
// check, then POST /backend-api/codex/responses, zstd-compressed, with the access token and
// the account id; the answer comes back as usual.
func TestChatGPTExecTurn(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	w.Model.Enqueue(answer("PLANANSWER"))
	r := w.run("", "exec", "--json", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "PLANANSWER") {
		t.Fatalf("exec: %+v", r)
	}
	paths := w.backend.Paths()
	if len(paths) != 2 || paths[0] != "GET /backend-api/wham/accounts/check" || paths[1] != "POST /backend-api/codex/responses" {
		t.Errorf("backend requests = %v", paths)
	}
	reqs := w.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	h := reqs[0].Header
	for k, want := range map[string]string{"Authorization": "Bearer " + w.access, "Chatgpt-Account-Id": "acct-123",
		"Originator": "codex_exec", "X-Testkit-Content-Encoding": "zstd", "Accept": "text/event-stream"} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if reqs[0].JSON["model"] != "gpt-5.5" || reqs[0].JSON["stream"] != true {
		t.Errorf("body = %v", reqs[0].JSON)
	}
	if w.issuer.Refreshes() != 0 {
		t.Errorf("a valid token was refreshed")
	}
	checkNoSecrets(t, w, r)
}

// An access token that expires within five minutes is refreshed before the turn; the rotated
// tokens are written back (0600, the rest of the file kept) and used.
func TestChatGPTRefreshBeforeExpiry(t *testing.T) {
	w := newChatGPTWorld(t, 60*time.Second)
	w.Model.Enqueue(answer("AFTERREFRESH"))
	r := w.run("", "exec", "--json", "hi")
	if r.Code != 0 || w.issuer.Refreshes() != 1 {
		t.Fatalf("exec %+v, refreshes %d", r, w.issuer.Refreshes())
	}
	tok := w.storedTokens(t)
	if tok["refresh_token"] == w.refresh || tok["access_token"] == w.access || tok["account_id"] != "acct-123" || tok["oauth_provenance"] == nil {
		t.Errorf("stored tokens after refresh: %v", tok)
	}
	if got := w.Model.Requests()[0].Header.Get("Authorization"); got != "Bearer "+tok["access_token"].(string) {
		t.Errorf("the turn used %q, not the refreshed token", got)
	}
	var refreshReq *tk.IssuerRequest
	for _, q := range w.issuer.Requests() {
		if q.Path == "/oauth/token" {
			refreshReq = &q
		}
	}
	if refreshReq == nil || refreshReq.JSON["grant_type"] != "refresh_token" || refreshReq.JSON["refresh_reason"] != "proactive_expiry" ||
		refreshReq.JSON["client_id"] != "app_EMoamEEZ73f0CkXaXp7hrann" || refreshReq.JSON["refresh_token"] != w.refresh {
		t.Errorf("refresh request = %+v", refreshReq)
	}
	if st, _ := os.Stat(w.authPath()); st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", st.Mode().Perm())
	}
	checkNoSecrets(t, w, r)
}

// Two 401s in a row: the first reloads the credentials, the second refreshes them
// (unauthorized_recovery); the turn then succeeds with the new token.
func TestChatGPTRefreshOn401(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	w.backend.Unauthorized(2)
	w.Model.Enqueue(answer("RECOVERED"))
	r := w.run("", "exec", "--json", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "RECOVERED") || w.issuer.Refreshes() != 1 {
		t.Fatalf("exec %+v, refreshes %d", r, w.issuer.Refreshes())
	}
	tok := w.storedTokens(t)
	if got := w.Model.Requests()[0].Header.Get("Authorization"); got != "Bearer "+tok["access_token"].(string) {
		t.Errorf("the turn used %q after recovery", got)
	}
	checkNoSecrets(t, w, r)
}

// An expired refresh token, with a backend that refuses the old access token: the turn fails
// with a message saying to sign in again, and auth.json is left as it was.
func TestChatGPTRevokedRefreshToken(t *testing.T) {
	w := newChatGPTWorld(t, 60*time.Second)
	before, _ := os.ReadFile(w.authPath())
	w.issuer.Fail("/oauth/token", tk.Response{Status: 401, Body: `{"error":{"code":"refresh_token_expired"}}`})
	w.backend.AcceptTokens(func(string) bool { return false })
	r := w.run("", "exec", "--json", "hi")
	if r.Code == 0 {
		t.Fatalf("exec succeeded with a rejected token: %+v", r)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "refresh token has expired. Please log out and sign in again.") {
		t.Errorf("no sign-in-again message:\n%s\n%s", r.Stdout, r.Stderr)
	}
	if after, _ := os.ReadFile(w.authPath()); string(after) != string(before) {
		t.Errorf("auth.json changed:\n%s", after)
	}
	checkNoSecrets(t, w, r)
}

// Two processes whose token is about to expire start at once: one refreshes, the other uses
// what it wrote (a refresh token is single-use: a second refresh would be refused).
func TestChatGPTConcurrentRefresh(t *testing.T) {
	w := newChatGPTWorld(t, 60*time.Second)
	w.Model.SetDefault(answer("BOTH"))
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.run("", "exec", "--json", "hi")
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Code != 0 || !strings.Contains(r.Stdout, "BOTH") {
			t.Errorf("process %d: %+v", i, r)
		}
	}
	if n := w.issuer.Refreshes(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	for _, q := range w.issuer.Requests() {
		if q.Path == "/oauth/token" && q.JSON["refresh_token"] != w.refresh {
			t.Errorf("a refresh used %v", q.JSON["refresh_token"])
		}
	}
}

// Logout revokes the refresh token at the issuer, then removes the credentials.
func TestChatGPTLogoutRevokes(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	r := w.run("", "logout")
	if r.Code != 0 || r.Stderr != "Successfully logged out\n" {
		t.Fatalf("logout: %+v", r)
	}
	var revoked bool
	for _, q := range w.issuer.Requests() {
		if q.Path == "/oauth/revoke" && q.JSON["token"] == w.refresh && q.JSON["token_type_hint"] == "refresh_token" &&
			q.JSON["client_id"] == "app_EMoamEEZ73f0CkXaXp7hrann" && q.Header.Get("Originator") == "codex_cli_rs" {
			revoked = true
		}
	}
	if !revoked {
		t.Errorf("no revoke request: %+v", w.issuer.Requests())
	}
	if _, err := os.Stat(w.authPath()); !os.IsNotExist(err) {
		t.Errorf("auth.json still there: %v", err)
	}
}

// checkNoSecrets greps every output and every file under CODEX_HOME but auth.json for the
// tokens.
func checkNoSecrets(t *testing.T, w *chatgptWorld, r result) {
	t.Helper()
	secrets := []string{w.access, w.refresh, w.id}
	tok := w.storedTokens(t)
	for _, k := range []string{"access_token", "refresh_token", "id_token"} {
		if s, ok := tok[k].(string); ok {
			secrets = append(secrets, s)
		}
	}
	for _, s := range secrets {
		if strings.Contains(r.Stdout, s) || strings.Contains(r.Stderr, s) {
			t.Errorf("a token is in the output")
		}
	}
	filepath.Walk(w.CodexHome, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || filepath.Base(path) == "auth.json" {
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("a token is in %s", path)
			}
		}
		return nil
	})
	if out, err := exec.Command("ps", "-eo", "args").Output(); err == nil {
		for _, s := range secrets {
			if strings.Contains(string(out), s) {
				t.Errorf("a token is in a process's arguments")
			}
		}
	}
}

// forced_chatgpt_workspace_id is honoured: a sign-in to another workspace is refused with a
// message saying so, the right one goes ahead.
func TestChatGPTForcedWorkspace(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	r := w.run("", "exec", "--json", "-c", `forced_chatgpt_workspace_id="acct-other"`, "hi")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, `forced_chatgpt_workspace_id = "acct-other"`) || len(w.Model.Requests()) != 0 {
		t.Errorf("another workspace: %+v", r)
	}
	w.Model.Enqueue(answer("RIGHTWORKSPACE"))
	if r := w.run("", "exec", "--json", "-c", `forced_chatgpt_workspace_id="acct-123"`, "hi"); r.Code != 0 || !strings.Contains(r.Stdout, "RIGHTWORKSPACE") {
		t.Errorf("the forced workspace: %+v", r)
	}
}
