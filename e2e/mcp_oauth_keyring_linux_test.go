package e2e

import (
	"encoding/json"
	"os"
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
