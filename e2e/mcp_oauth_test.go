package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit/oauthmcp"
)

var (
	fakeBrowserOnce sync.Once
	fakeBrowserPath string
	fakeBrowserErr  error
)

// fakeBrowser builds the $BROWSER of the OAuth tests once.
func fakeBrowser(t *testing.T) string {
	t.Helper()
	fakeBrowserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gocodex-fakebrowser-")
		if err != nil {
			fakeBrowserErr = err
			return
		}
		fakeBrowserPath = filepath.Join(dir, "fakebrowser")
		out, err := exec.Command("go", "build", "-o", fakeBrowserPath, "github.com/gocodex/gocodex/internal/testkit/cmd/fakebrowser").CombinedOutput()
		if err != nil {
			fakeBrowserErr = err
			t.Logf("%s", out)
		}
	})
	if fakeBrowserErr != nil {
		t.Fatal(fakeBrowserErr)
	}
	return fakeBrowserPath
}

// oauthWorld is a CODEX_HOME with the OAuth-protected server configured through `mcp add`.
func oauthWorld(t *testing.T) (*env, *oauthmcp.Server) {
	e := newEnv(t)
	srv := oauthmcp.New(t)
	// The file store: Codex's default (a keyring) is not there on a headless machine. A
	// top-level key, so before the tables.
	path := filepath.Join(e.CodexHome, "config.toml")
	if err := os.WriteFile(path, []byte("mcp_oauth_credentials_store = \"file\"\n"+readFile(t, path)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.ExtraEnv = append(e.ExtraEnv, "BROWSER="+fakeBrowser(t))
	return e, srv
}

// storedCredentials reads .credentials.json, checking its mode.
func storedCredentials(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	path := filepath.Join(home, ".credentials.json")
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf(".credentials.json has mode %v, want 0600", fi.Mode().Perm())
	}
	var all map[string]map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &all); err != nil {
		t.Fatal(err)
	}
	return all
}

func listAuth(t *testing.T, e *env, bin string) string {
	t.Helper()
	r := e.runBin(bin, "", "mcp", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("mcp list --json: %v %q %s", err, r.Stdout, r.Stderr)
	}
	return list[0]["auth_status"].(string)
}

// TestMcpOAuth: `mcp add --url` of a server behind OAuth signs in at once (discovery from the
// 401, dynamic registration, the code flow with PKCE through the local callback), the tokens go
// to .credentials.json (0600; config.toml holds none), a turn's tool call carries the bearer,
// an expired token is refreshed (the rotated refresh token saved), and `mcp logout` removes
// them. GOCODEX_REFERENCE_CODEX_171 plays the same script against Codex 0.171, whose
// credentials gocodex then uses.
func TestMcpOAuth(t *testing.T) {
	t.Parallel()
	check := func(who, bin string) {
		e, srv := oauthWorld(t)
		r := e.runBin(bin, "", "mcp", "add", "linear", "--url", srv.URL())
		for _, want := range []string{"Detected OAuth support. Starting OAuth flow", "Authorize `linear` by opening this URL in your browser:", "Successfully logged in."} {
			if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, want) {
				t.Fatalf("%s mcp add: exit %d, want %q in\n%s%s", who, r.Code, want, r.Stdout, r.Stderr)
			}
		}
		creds := storedCredentials(t, e.CodexHome)
		if len(creds) != 1 {
			t.Fatalf("%s: %d stored entries", who, len(creds))
		}
		var key string
		var first map[string]any
		for k, v := range creds {
			key, first = k, v
		}
		if !strings.HasPrefix(key, "linear|") || len(key) != len("linear|")+16 || first["server_url"] != srv.URL() ||
			first["client_id"] == "" || first["access_token"] == "" || first["refresh_token"] == "" {
			t.Errorf("%s: stored %s = %v", who, key, first)
		}
		if cfg := readFile(t, filepath.Join(e.CodexHome, "config.toml")); strings.Contains(cfg, first["access_token"].(string)) || strings.Contains(cfg, first["refresh_token"].(string)) {
			t.Errorf("%s: a token is in config.toml", who)
		}
		if got := listAuth(t, e, binary); got != "o_auth" {
			t.Errorf("%s's sign-in: gocodex mcp list says %q", who, got)
		}

		// A turn calls the tool with the token (gocodex, whoever signed in).
		e.Model.Enqueue(callThenAnswer(namespacedCall("call_1", "mcp__linear", "whoami", `{}`))...)
		if r := e.run("", "exec", "--json", "who am I"); r.Code != 0 {
			t.Fatalf("%s's sign-in, gocodex turn: exit %d\n%s", who, r.Code, r.Stderr)
		}
		if out := functionOutput(t, e.Model.Requests()[1].JSON, "call_1"); !strings.Contains(out, "authorized as e2e-user") {
			t.Errorf("%s's sign-in: the tool answered %q", who, out)
		}

		// The access token expires: the next turn refreshes it, and the rotated refresh token
		// is what is stored.
		srv.ExpireAccessTokens()
		e.Model.Enqueue(callThenAnswer(namespacedCall("call_2", "mcp__linear", "whoami", `{}`))...)
		if r := e.run("", "exec", "--json", "again"); r.Code != 0 {
			t.Fatalf("%s: turn after expiry: exit %d\n%s", who, r.Code, r.Stderr)
		}
		if out := functionOutput(t, e.Model.Requests()[3].JSON, "call_2"); !strings.Contains(out, "authorized as e2e-user") {
			t.Errorf("%s: after the refresh the tool answered %q", who, out)
		}
		after := storedCredentials(t, e.CodexHome)[key]
		if after["refresh_token"] == first["refresh_token"] || after["access_token"] == first["access_token"] {
			t.Errorf("%s: the refreshed tokens were not saved: %v", who, after)
		}

		r = e.runBin(bin, "", "mcp", "logout", "linear")
		if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "Removed OAuth credentials for 'linear'.") {
			t.Errorf("%s mcp logout: exit %d %s%s", who, r.Code, r.Stdout, r.Stderr)
		}
		if creds := storedCredentials(t, e.CodexHome); len(creds) != 0 {
			t.Errorf("%s: credentials left after logout: %v", who, creds)
		}
		if got := listAuth(t, e, bin); got != "not_logged_in" {
			t.Errorf("%s: after logout mcp list says %q", who, got)
		}
	}
	check("gocodex", binary)
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171"); ref != "" {
		check("codex 0.171", ref)
	}
}

// TestMcpOAuthBadInput: an authorization server that answers garbage or refuses the code, a
// callback with a forged state, a refresh token that was revoked: a message naming the server,
// and nothing stored.
func TestMcpOAuthBadInput(t *testing.T) {
	t.Parallel()
	e, srv := oauthWorld(t)
	e.addMcpConfig("[mcp_servers.linear]\nurl = \"" + srv.URL() + "\"\nrequired = true\n")
	login := func(extra ...string) result {
		saved := e.ExtraEnv
		e.ExtraEnv = append(append([]string{}, e.ExtraEnv...), extra...)
		defer func() { e.ExtraEnv = saved }()
		return e.run("", "mcp", "login", "linear")
	}
	srv.SetFaults(true, false)
	if r := login(); r.Code == 0 || !strings.Contains(r.Stderr, "`linear`") {
		t.Errorf("garbage metadata: exit %d %s", r.Code, r.Stderr)
	}
	srv.SetFaults(false, true)
	if r := login(); r.Code == 0 || !strings.Contains(r.Stderr, "`linear`") || !strings.Contains(r.Stderr, "invalid_grant") {
		t.Errorf("refused code: exit %d %s", r.Code, r.Stderr)
	}
	srv.SetFaults(false, false)
	if r := login("FAKEBROWSER_STATE=forged"); r.Code == 0 || !strings.Contains(r.Stderr, "state mismatch") {
		t.Errorf("forged state: exit %d %s", r.Code, r.Stderr)
	}
	if creds := storedCredentials(t, e.CodexHome); len(creds) != 0 {
		t.Fatalf("a failed sign-in stored %v", creds)
	}

	// Signed in, then the refresh token is revoked and the access token expires: the
	// (required) server's failure names it and the way back.
	if r := login(); r.Code != 0 || !strings.Contains(r.Stdout, "Successfully logged in to MCP server 'linear'.") {
		t.Fatalf("login: exit %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	before := storedCredentials(t, e.CodexHome)
	srv.RevokeRefreshTokens()
	srv.ExpireAccessTokens()
	e.Model.Enqueue(answer("done"))
	r := e.run("", "exec", "hi")
	if !strings.Contains(r.Stdout+r.Stderr, "gocodex mcp login linear") {
		t.Errorf("revoked refresh token: exit %d, no hint to sign in again:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := storedCredentials(t, e.CodexHome); !jsonEqual(before, after) {
		t.Errorf("a refused refresh changed the stored credentials")
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestMcpOAuthResource: `mcp add --oauth-resource` writes oauth_resource, and the sign-in names
// it in the authorization request besides the resource of the server's metadata, as Codex 0.171
// does (seen: `…&resource=<metadata's>&resource=<given>`).
func TestMcpOAuthResource(t *testing.T) {
	t.Parallel()
	e, srv := oauthWorld(t)
	const given = "https://resource.example/mcp"
	r := e.run("", "mcp", "add", "linear", "--url", srv.URL(), "--oauth-resource", given)
	if r.Code != 0 || !strings.Contains(r.Stdout, "Successfully logged in.") {
		t.Fatalf("mcp add: exit %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if cfg := readFile(t, filepath.Join(e.CodexHome, "config.toml")); !strings.Contains(cfg, `oauth_resource = "`+given+`"`) {
		t.Errorf("config.toml lacks oauth_resource:\n%s", cfg)
	}
	got := srv.AuthorizeResources()
	if len(got) != 1 || len(got[0]) != 2 || got[0][0] != srv.URL() || got[0][1] != given {
		t.Errorf("authorization requests' resources: %q, want [[%s %s]]", got, srv.URL(), given)
	}
}
