package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// browserLogin is a `login` running in the background with its stderr read line by line.
type browserLogin struct {
	cmd    *exec.Cmd
	lines  chan string
	exited chan error
}

func startBrowserLogin(t *testing.T, bin, home string, port int) *browserLogin {
	return startBrowserLoginArgs(t, bin, home, port)
}

// until returns the first stderr line containing want.
func (b *browserLogin) until(t *testing.T, want string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-b.lines:
			if !ok {
				t.Fatalf("login ended before %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("no %q from login", want)
		}
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The browser sign-in prints Codex's authorize URL (same parameters, same order), refuses a
// callback with the wrong state and keeps waiting, and a second sign-in on the same port
// cancels the first, as Codex's does.
func TestBrowserLoginURLStateAndCancel(t *testing.T) {
	port := freePort(t)
	first := startBrowserLogin(t, binary, t.TempDir(), port)
	first.until(t, "Starting local login server on http://localhost:"+strconv.Itoa(port)+".")
	authURL := first.until(t, "https://auth.openai.com/oauth/authorize?")
	wantPrefix := "https://auth.openai.com/oauth/authorize?response_type=code&client_id=app_EMoamEEZ73f0CkXaXp7hrann&redirect_uri=http%3A%2F%2F127.0.0.1%3A" +
		strconv.Itoa(port) + "%2Fauth%2Fcallback&code_challenge="
	wantSuffix := "&scope=openid+profile+email+offline_access+api.connectors.read+api.connectors.invoke&id_token_add_organizations=true&codex_cli_simplified_flow=true&originator=codex_cli_rs"
	if !strings.HasPrefix(authURL, wantPrefix) || !strings.HasSuffix(authURL, wantSuffix) || !strings.Contains(authURL, "&code_challenge_method=S256&state=") {
		t.Errorf("authorize URL:\n%s", authURL)
	}

	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/auth/callback?code=x&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("forged state answered %d, want 400", resp.StatusCode)
	}
	select {
	case err := <-first.exited:
		t.Fatalf("login ended on a forged callback: %v", err)
	case <-time.After(200 * time.Millisecond):
	}

	second := startBrowserLogin(t, binary, t.TempDir(), port)
	first.until(t, "Error logging in: Login cancelled")
	if err := <-first.exited; err == nil {
		t.Error("the cancelled login exited 0")
	}
	second.until(t, "Starting local login server")
	second.until(t, "https://auth.openai.com/oauth/authorize?")
	_ = second.cmd.Process.Kill()
}

// A gocodex sign-in cancels a Codex 0.169 sign-in holding port 1455, as a second Codex would.
func TestBrowserLoginCancelsCodexLoginServer(t *testing.T) {
	ref := referenceBinary(t)
	if ln, err := net.Listen("tcp", "127.0.0.1:1455"); err != nil {
		t.Skip("port 1455 is busy on this machine")
	} else {
		ln.Close()
	}
	codex := startBrowserLogin(t, ref, t.TempDir(), 1455)
	codex.until(t, "Starting local login server on http://localhost:1455.")
	ours := startBrowserLogin(t, binary, t.TempDir(), 1455)
	codex.until(t, "Login cancelled")
	ours.until(t, "https://auth.openai.com/oauth/authorize?")
	_ = ours.cmd.Process.Kill()
}

// The whole browser sign-in against the scripted issuer: the test plays the browser (follows
// the authorize redirect to the callback, then to the success page); the login stores the
// ChatGPT tokens, the exchanged API key and the issuer's provenance, and exits 0.
func TestBrowserLoginCompletes(t *testing.T) {
	iss := tk.NewOAuthIssuer(t)
	home := t.TempDir()
	port := freePort(t)
	cmd := startBrowserLoginArgs(t, binary, home, port, "--experimental_issuer", iss.URL())
	authURL := cmd.until(t, iss.URL()+"/oauth/authorize?")
	resp, err := http.Get(strings.TrimSpace(authURL)) // follows issuer -> callback -> success
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Signed in") || !strings.Contains(resp.Request.URL.Path, "/success") {
		t.Fatalf("browser ended at %s %d:\n%s", resp.Request.URL, resp.StatusCode, page)
	}
	cmd.until(t, "Successfully logged in")
	if err := <-cmd.exited; err != nil {
		t.Fatalf("login exited with %v", err)
	}
	var f struct {
		Mode   string  `json:"auth_mode"`
		APIKey *string `json:"OPENAI_API_KEY"`
		Tokens struct {
			Provenance struct {
				Issuer string `json:"issuer"`
			} `json:"oauth_provenance"`
			AccountID string `json:"account_id"`
		} `json:"tokens"`
	}
	data, _ := os.ReadFile(filepath.Join(home, "auth.json"))
	if err := json.Unmarshal(data, &f); err != nil || f.Mode != "chatgpt" || f.APIKey == nil || *f.APIKey != "sk-exchanged-from-id-token" ||
		f.Tokens.Provenance.Issuer != iss.URL() || f.Tokens.AccountID != "acct-123" {
		t.Errorf("auth.json = %s (%v)", data, err)
	}
	var grants []string
	for _, q := range iss.Requests() {
		if q.Path == "/oauth/token" {
			grants = append(grants, q.Form.Get("grant_type"))
		}
	}
	if strings.Join(grants, ",") != "authorization_code,urn:ietf:params:oauth:grant-type:token-exchange" {
		t.Errorf("token requests = %v", grants)
	}
	// Status as Codex reports it.
	if r := runIn(t, binary, home, "", "login", "status"); r.Stderr != "Logged in using ChatGPT\n" || r.Code != 0 {
		t.Errorf("status: %+v", r)
	}
}

// The device flow prints the code and URL on stdout, polls through "pending" at the server's
// interval, exchanges the code with the device callback as redirect and stores the tokens.
func TestDeviceLoginCompletes(t *testing.T) {
	iss := tk.NewOAuthIssuer(t)
	iss.DevicePending(2)
	home := t.TempDir()
	r := runIn(t, binary, home, "", "login", "--device-auth", "--experimental_issuer", iss.URL())
	if r.Code != 0 || !strings.Contains(r.Stdout, iss.URL()+"/codex/device") || !strings.Contains(r.Stdout, "ABCD-EFGH") ||
		r.Stderr != "Successfully logged in\n" {
		t.Fatalf("device login: %+v", r)
	}
	polls := 0
	for _, q := range iss.Requests() {
		switch q.Path {
		case "/api/accounts/deviceauth/token":
			polls++
		case "/oauth/token":
			if q.Form.Get("redirect_uri") != iss.URL()+"/deviceauth/callback" || q.Form.Get("grant_type") != "authorization_code" {
				t.Errorf("exchange = %v", q.Form)
			}
		}
	}
	if polls != 3 {
		t.Errorf("%d polls, want 3 (two pending)", polls)
	}
	data, _ := os.ReadFile(filepath.Join(home, "auth.json"))
	if !strings.Contains(string(data), `"auth_mode": "chatgpt"`) || !strings.Contains(string(data), `"OPENAI_API_KEY": null`) {
		t.Errorf("auth.json = %s", data)
	}
}

// A failing token endpoint: a clear message, exit 1, nothing written.
func TestDeviceLoginTokenEndpointFails(t *testing.T) {
	iss := tk.NewOAuthIssuer(t)
	iss.Fail("/oauth/token", tk.Response{Status: 500, Body: "<html>oops</html>"})
	home := t.TempDir()
	r := runIn(t, binary, home, "", "login", "--device-auth", "--experimental_issuer", iss.URL())
	if r.Code != 1 || !strings.Contains(r.Stderr, "Error logging in: token exchange failed: the issuer answered 500") {
		t.Errorf("login: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(home, "auth.json")); !os.IsNotExist(err) {
		t.Errorf("auth.json written: %v", err)
	}
}

func startBrowserLoginArgs(t *testing.T, bin, home string, port int, args ...string) *browserLogin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, append([]string{"login"}, args...)...)
	cmd.Env = append(cleanEnviron(), "CODEX_HOME="+home, "HOME="+t.TempDir(), "GOCODEX_LOGIN_PORT="+strconv.Itoa(port), "DISPLAY=", "WAYLAND_DISPLAY=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browserLogin{cmd: cmd, lines: make(chan string, 100), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
		b.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return b
}
