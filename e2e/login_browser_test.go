package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// browserLogin is a `login` running in the background with its stderr read line by line.
type browserLogin struct {
	cmd    *exec.Cmd
	lines  chan string
	exited chan error
}

func startBrowserLogin(t *testing.T, bin, home string, port int, extraEnv ...string) *browserLogin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "login")
	cmd.Env = append(cleanEnviron(), append([]string{"CODEX_HOME=" + home, "HOME=" + t.TempDir(),
		"GOCODEX_LOGIN_PORT=" + strconv.Itoa(port), "DISPLAY=", "WAYLAND_DISPLAY="}, extraEnv...)...)
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
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
		b.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return b
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
