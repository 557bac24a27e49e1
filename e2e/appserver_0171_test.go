package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/testkit/oauthmcp"
)

// Codex 0.171's new app-server surface (docs/appserver-0171.md lists the schema's changes
// from 0.169). Each test runs gocodex and, where GOCODEX_REFERENCE_CODEX_171 names the Codex
// 0.171 binary, Codex on the same script with the same checks.

// reference171 is Codex 0.171's binary, or "" without GOCODEX_REFERENCE_CODEX_171.
func reference171() string { return os.Getenv("GOCODEX_REFERENCE_CODEX_171") }

// bothOf171 runs check on gocodex, then on Codex 0.171 where it is installed.
func bothOf171(t *testing.T, check func(who, bin string)) {
	t.Helper()
	check("gocodex", binary)
	if ref := reference171(); ref != "" {
		check("codex 0.171", ref)
	} else {
		t.Log("GOCODEX_REFERENCE_CODEX_171 is not set: Codex 0.171 not compared")
	}
}

// TestAppServerModelProviderDefaultSet: modelProvider/default/set (new and stable in 0.171)
// writes config.toml's model_provider and answers the write; a provider that is not
// configured, and params without providerId, are refused in Codex 0.171's words.
func TestAppServerModelProviderDefaultSet(t *testing.T) {
	t.Parallel()
	bothOf171(t, func(who, bin string) {
		e := newEnv(t)
		c, stop := e.startAppServerOf(bin)
		defer stop()
		var res struct {
			Status             string  `json:"status"`
			Version            string  `json:"version"`
			FilePath           string  `json:"filePath"`
			OverriddenMetadata *string `json:"overriddenMetadata"`
		}
		c.mustCall("modelProvider/default/set", map[string]any{"providerId": "openai"}, &res)
		path := filepath.Join(e.CodexHome, "config.toml")
		if res.Status != "ok" || !strings.HasPrefix(res.Version, "sha256:") || res.FilePath != path || res.OverriddenMetadata != nil {
			t.Errorf("%s: answered %+v", who, res)
		}
		if cfg := readFile(t, path); !strings.Contains(cfg, `model_provider = "openai"`) {
			t.Errorf("%s: config.toml is\n%s", who, cfg)
		}
		for _, tc := range []struct {
			params any
			want   string
		}{
			{map[string]any{"providerId": "nope"}, "Model provider `nope` is not configured."},
			{map[string]any{}, "Invalid request: missing field `providerId`"},
		} {
			_, em := c.call("modelProvider/default/set", tc.params)
			if em == nil || em.Error.Code != -32600 || em.Error.Message != tc.want {
				t.Errorf("%s: %v answered %+v, want -32600 %q", who, tc.params, em, tc.want)
			}
		}
	})
}

// TestAppServerMcpOAuthLogin: mcpServer/oauth/login of a server behind OAuth answers the
// authorization URL and a loginId; once the client's browser (here the test) has opened it,
// mcpServer/oauthLogin/completed says the sign-in succeeded (the same loginId) and the tokens
// are in .credentials.json (0600), nothing in config.toml. An unknown server is refused in
// Codex 0.171's words.
func TestAppServerMcpOAuthLogin(t *testing.T) {
	t.Parallel()
	bothOf171(t, func(who, bin string) {
		e := newEnv(t)
		srv := oauthmcp.New(t)
		path := filepath.Join(e.CodexHome, "config.toml")
		if err := os.WriteFile(path, []byte("mcp_oauth_credentials_store = \"file\"\n"+readFile(t, path)), 0o600); err != nil {
			t.Fatal(err)
		}
		e.addMcpConfig("[mcp_servers.linear]\nurl = \"" + srv.URL() + "\"\n")
		c, stop := e.startAppServerOf(bin)
		defer stop()

		if _, em := c.call("mcpServerStatus/list", map[string]any{"environmentId": "remote"}); em == nil || em.Error.Code != -32600 ||
			em.Error.Message != "environmentId requires serverName and threadId" {
			t.Errorf("%s: mcpServerStatus/list of an environment without a server and thread answered %+v", who, em)
		}
		for _, tc := range []struct {
			params map[string]any
			want   string
		}{
			{map[string]any{"name": "nope"}, "No MCP server named 'nope' found."},
			{map[string]any{"name": "linear", "environmentId": "remote"}, "No MCP server named 'linear (environment remote)' found."},
		} {
			_, em := c.call("mcpServer/oauth/login", tc.params)
			if em == nil || em.Error.Code != -32600 || em.Error.Message != tc.want {
				t.Errorf("%s: %v answered %+v, want %q", who, tc.params, em, tc.want)
			}
		}

		var res struct {
			AuthorizationURL string `json:"authorizationUrl"`
			LoginID          string `json:"loginId"`
		}
		c.mustCall("mcpServer/oauth/login", map[string]any{"name": "linear"}, &res)
		if res.LoginID == "" || !strings.Contains(res.AuthorizationURL, "code_challenge_method=S256") {
			t.Fatalf("%s: answered %+v", who, res)
		}
		// The client's browser: the authorization server redirects to the local callback.
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(res.AuthorizationURL)
		if err != nil {
			t.Fatalf("%s: opening the authorization URL: %v", who, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: the callback answered %s: %s", who, resp.Status, body)
		}
		msgs := c.until("mcpServer/oauthLogin/completed")
		var done struct {
			Name    string  `json:"name"`
			LoginID string  `json:"loginId"`
			Success bool    `json:"success"`
			Error   *string `json:"error"`
		}
		if err := json.Unmarshal(msgs[len(msgs)-1].Params, &done); err != nil {
			t.Fatal(err)
		}
		if done.Name != "linear" || done.LoginID != res.LoginID || !done.Success || done.Error != nil {
			t.Errorf("%s: completed with %s", who, msgs[len(msgs)-1].Params)
		}
		creds := storedCredentials(t, e.CodexHome)
		if len(creds) != 1 {
			t.Fatalf("%s: %d stored entries", who, len(creds))
		}
		for key, v := range creds {
			if !strings.HasPrefix(key, "linear|") || v["access_token"] == "" || v["refresh_token"] == "" {
				t.Errorf("%s: stored %s = %v", who, key, v)
			}
			if strings.Contains(readFile(t, path), v["access_token"].(string)) {
				t.Errorf("%s: the access token is in config.toml", who)
			}
		}
	})
}

// TestAppServer0171ExperimentalMethodsUnsupported: thread/realtime/list, experimental and new
// in 0.171, is known to gocodex, which has no realtime voice sessions: with experimentalApi
// it answers -32601 "<method> is not supported by gocodex" (Codex 0.171 serves it), without
// it Codex's capability error; never "unknown variant". The thread search methods are
// served (appserver_thread_search_test.go) and gated the same way.
func TestAppServer0171ExperimentalMethodsUnsupported(t *testing.T) {
	t.Parallel()
	methods := map[string]any{
		"thread/realtime/list": map[string]any{"threadId": "019b0000-0000-7000-8000-000000000000"},
	}
	gated := []string{"thread/search", "thread/search/stream", "thread/search/cancel", "thread/search/stream/cancel"}
	for _, experimental := range []bool{true, false} {
		e := newEnv(t)
		if experimental {
			e.capabilities = map[string]any{"experimentalApi": true}
		}
		c, stop := e.startAppServer()
		for m, p := range methods {
			_, em := c.call(m, p)
			want, code := m+" is not supported by gocodex", -32601
			if !experimental {
				want, code = m+" requires experimentalApi capability", -32600
			}
			if em == nil || em.Error.Code != code || em.Error.Message != want {
				t.Errorf("experimentalApi %v: %s answered %+v, want %d %q", experimental, m, em, code, want)
			}
		}
		for _, m := range gated {
			_, em := c.call(m, map[string]any{"searchTerm": "x", "requestId": 1})
			if gatedOut := em != nil && em.Error.Message == m+" requires experimentalApi capability"; gatedOut == experimental {
				t.Errorf("experimentalApi %v: %s answered %+v", experimental, m, em)
			}
		}
		stop()
	}
}

// TestAppServerThreadListIncludedThreadIds: thread/list's includedThreadIds (new in 0.171)
// keeps only the threads it names, an empty list none; more than 100 ids, or one that is
// not a thread id, is refused in Codex 0.171's words.
func TestAppServerThreadListIncludedThreadIds(t *testing.T) {
	t.Parallel()
	bothOf171(t, func(who, bin string) {
		e := newEnv(t)
		withCodexThreads(t, e)
		c, stop := e.startAppServerOf(bin)
		defer stop()
		ids := func(params map[string]any) []string {
			var res struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			params["sourceKinds"] = []string{"vscode", "exec"}
			c.mustCall("thread/list", params, &res)
			out := []string{}
			for _, d := range res.Data {
				out = append(out, d.ID)
			}
			return out
		}
		if got := ids(map[string]any{}); len(got) != 2 {
			t.Fatalf("%s: listed %v, want the two recorded threads", who, got)
		}
		if got := ids(map[string]any{"includedThreadIds": []string{codexUIThread}}); len(got) != 1 || got[0] != codexUIThread {
			t.Errorf("%s: included %s, listed %v", who, codexUIThread, got)
		}
		if got := ids(map[string]any{"includedThreadIds": []string{}}); len(got) != 0 {
			t.Errorf("%s: included none, listed %v", who, got)
		}
		for _, tc := range []struct {
			ids  []string
			want string
		}{
			{strings.Split(strings.Repeat(codexUIThread+",", 101), ",")[:101], "includedThreadIds accepts at most 100 entries"},
			{[]string{"bad"}, "invalid included thread id: invalid length: expected length 32 for simple format, found 3"},
		} {
			_, em := c.call("thread/list", map[string]any{"includedThreadIds": tc.ids})
			if em == nil || em.Error.Code != -32602 || em.Error.Message != tc.want {
				t.Errorf("%s: %d ids answered %+v, want -32602 %q", who, len(tc.ids), em, tc.want)
			}
		}
	})
}

// TestAppServerAccountUpdatedReason: account/updated carries 0.171's reason, null after an
// API-key sign-in.
func TestAppServerAccountUpdatedReason(t *testing.T) {
	t.Parallel()
	bothOf171(t, func(who, bin string) {
		e := newEnv(t)
		c, stop := e.startAppServerOf(bin)
		defer stop()
		c.mustCall("account/login/start", map[string]any{"type": "apiKey", "apiKey": "sk-test"}, nil)
		msgs := c.until("account/updated")
		var u map[string]json.RawMessage
		if err := json.Unmarshal(msgs[len(msgs)-1].Params, &u); err != nil {
			t.Fatal(err)
		}
		if r, ok := u["reason"]; !ok || string(r) != "null" || string(u["authMode"]) != `"apikey"` {
			t.Errorf("%s: account/updated %s", who, msgs[len(msgs)-1].Params)
		}
	})
}

// TestAppServerThreadStartKeyOrder: thread/start answers its keys in Codex 0.171's order
// (activePermissionProfile after sandbox).
func TestAppServerThreadStartKeyOrder(t *testing.T) {
	t.Parallel()
	want := "thread,model,modelProvider,serviceTier,disabledPluginIds,cwd,runtimeWorkspaceRoots,instructionSources,approvalPolicy,approvalsReviewer,sandbox,activePermissionProfile,reasoningEffort,multiAgentMode"
	bothOf171(t, func(who, bin string) {
		e := newEnv(t)
		c, stop := e.startAppServerOf(bin)
		defer stop()
		res, em := c.call("thread/start", map[string]any{})
		if em != nil {
			t.Fatalf("%s: thread/start: %+v", who, em.Error)
		}
		dec := json.NewDecoder(strings.NewReader(string(res)))
		var keys []string
		if _, err := dec.Token(); err != nil { // {
			t.Fatal(err)
		}
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(keys, ","); got != want {
			t.Errorf("%s: keys\n got %s\nwant %s", who, got, want)
		}
	})
}
