package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/mcp/oauth"
	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/testkit/oauthmcp"
)

// TestMcpOAuthKeyring: with mcp_oauth_credentials_store left at its default ("auto") and a
// Secret Service running (a real gnome-keyring on its own D-Bus), `mcp add` keeps the tokens in
// the keyring under Codex's service and account (read from outside with secret-tool), writes
// no .credentials.json and nothing into config.toml, a turn's tool call carries the token, the
// other binary sees the sign-in, and `mcp logout` removes the entry. GOCODEX_REFERENCE_CODEX_171
// plays the same script with Codex 0.171 signing in, whose keyring entry gocodex then uses.
func TestMcpOAuthKeyring(t *testing.T) {
	t.Parallel()
	kr := testkit.StartKeyring(t)
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171")
	check := func(who, bin string) {
		e := newEnv(t)
		srv := oauthmcp.New(t)
		e.ExtraEnv = append(e.ExtraEnv, "BROWSER="+fakeBrowser(t))
		e.ExtraEnv = append(e.ExtraEnv, kr.Env()...)
		r := e.runBin(bin, "", "mcp", "add", "linear", "--url", srv.URL())
		if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "Successfully logged in.") {
			t.Fatalf("%s mcp add: exit %d\n%s%s", who, r.Code, r.Stdout, r.Stderr)
		}
		if creds := storedCredentials(t, e.CodexHome); creds != nil {
			t.Errorf("%s: with a keyring the tokens went to .credentials.json too: %v", who, creds)
		}
		key := oauth.Key("linear", srv.URL(), nil)
		secret := kr.Lookup(t, "Codex MCP Credentials", key)
		var entry struct {
			URL           string `json:"url"`
			TokenResponse struct {
				AccessToken  string `json:"access_token"`
				RefreshToken string `json:"refresh_token"`
			} `json:"token_response"`
		}
		if err := json.Unmarshal([]byte(secret), &entry); err != nil || entry.URL != srv.URL() || entry.TokenResponse.AccessToken == "" {
			t.Fatalf("%s: keyring entry %q under %q: %v", who, secret, key, err)
		}
		if cfg := readFile(t, filepath.Join(e.CodexHome, "config.toml")); strings.Contains(cfg, entry.TokenResponse.AccessToken) {
			t.Errorf("%s: the token is in config.toml", who)
		}
		for _, lister := range []string{binary, ref} {
			if lister == "" {
				continue
			}
			if got := listAuth(t, e, lister); got != "o_auth" {
				t.Errorf("%s's sign-in: %s mcp list says %q", who, lister, got)
			}
		}

		e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__linear", "whoami", `{}`))...)
		if r := e.run("", "exec", "--json", "who am I"); r.Code != 0 {
			t.Fatalf("%s's sign-in, gocodex turn: exit %d\n%s", who, r.Code, r.Stderr)
		}
		if out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1"); !strings.Contains(out, "authorized as e2e-user") {
			t.Errorf("%s's sign-in: the tool answered %q", who, out)
		}

		r = e.run("", "mcp", "logout", "linear")
		if r.Code != 0 || !strings.Contains(r.Stdout, "Removed OAuth credentials for 'linear'.") {
			t.Errorf("gocodex mcp logout of %s's sign-in: exit %d %s%s", who, r.Code, r.Stdout, r.Stderr)
		}
		if left := kr.Lookup(t, "Codex MCP Credentials", key); left != "" {
			t.Errorf("%s: the keyring entry outlived logout", who)
		}
	}
	check("gocodex", binary)
	if ref != "" {
		check("codex 0.171", ref)
	}
}

// TestMcpOAuthKeyringMissing: mcp_oauth_credentials_store = "keyring" with no Secret Service
// fails with a message naming the setting and the way out, before the sign-in starts (Codex
// 0.171 signs in first and then fails to save), and stores nothing anywhere.
func TestMcpOAuthKeyringMissing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := oauthmcp.New(t)
	e.ExtraEnv = append(e.ExtraEnv, "BROWSER="+fakeBrowser(t))
	path := filepath.Join(e.CodexHome, "config.toml")
	if err := os.WriteFile(path, []byte("mcp_oauth_credentials_store = \"keyring\"\n"+readFile(t, path)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.addMcpConfig("[mcp_servers.linear]\nurl = \"" + srv.URL() + "\"\n")
	r := e.run("", "mcp", "login", "linear")
	if r.Code == 0 || !strings.Contains(r.Stderr, `mcp_oauth_credentials_store = "keyring", but no keyring is available`) || !strings.Contains(r.Stderr, `"file"`) {
		t.Fatalf("login without a keyring: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := srv.AuthorizeResources(); len(got) != 0 {
		t.Errorf("the sign-in started anyway: %d authorization requests", len(got))
	}
	if creds := storedCredentials(t, e.CodexHome); creds != nil {
		t.Errorf("stored %v", creds)
	}
}

// TestAuthKeyringInterop: with cli_auth_credentials_store = "keyring" and a real Secret
// Service, an API-key sign-in lands in the keyring (service "Codex Auth", read from outside),
// not in auth.json, and each binary reads the other's (GOCODEX_REFERENCE_CODEX for Codex).
func TestAuthKeyringInterop(t *testing.T) {
	t.Parallel()
	kr := testkit.StartKeyring(t)
	run := func(bin, home, stdin string, args ...string) result {
		t.Helper()
		return runInEnv(t, bin, home, stdin, kr.Env(), args...)
	}
	pairs := [][2]string{{binary, binary}}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		pairs = append(pairs, [2]string{binary, ref}, [2]string{ref, binary})
	}
	for _, p := range pairs {
		writer, reader := p[0], p[1]
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("cli_auth_credentials_store = \"keyring\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := run(writer, home, "sk-keyring-0123456789\n", "login", "--with-api-key"); r.Code != 0 {
			t.Fatalf("%s login: %+v", writer, r)
		}
		if _, err := os.Stat(filepath.Join(home, "auth.json")); !os.IsNotExist(err) {
			t.Errorf("%s wrote auth.json in keyring mode: %v", writer, err)
		}
		found := false
		for _, acct := range keyringAccounts(t, kr, "Codex Auth") {
			found = found || strings.HasPrefix(acct, "cli|")
		}
		if !found {
			t.Errorf("%s: no cli| entry under Codex Auth", writer)
		}
		if r := run(reader, home, "", "login", "status"); r.Code != 0 || !strings.Contains(r.Stderr, "sk-keyri***56789") {
			t.Errorf("%s reading %s's keyring entry: %+v", reader, writer, r)
		}
		if r := run(reader, home, "", "logout"); r.Code != 0 {
			t.Errorf("%s logout: %+v", reader, r)
		}
	}
}

// keyringAccounts are the accounts stored under service, read with secret-tool.
func keyringAccounts(t *testing.T, kr *testkit.Keyring, service string) []string {
	t.Helper()
	cmd := exec.Command("secret-tool", "search", "--all", "service", service)
	cmd.Env = append(os.Environ(), kr.Env()...)
	out, _ := cmd.CombinedOutput()
	var accts []string
	for _, l := range strings.Split(string(out), "\n") {
		if a, ok := strings.CutPrefix(l, "attribute.username = "); ok {
			accts = append(accts, a)
		}
	}
	return accts
}
