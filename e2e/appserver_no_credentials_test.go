package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// TestAppServerThreadStartWithoutCredentials: Codex 0.171 starts a thread with no credentials
// at all (authentication is needed only when a turn calls the model): account/read says the
// client must sign in, the turn's request goes out without an Authorization header, and the
// provider's 401 ends the turn as failed with an error the client can show.
// GOCODEX_REFERENCE_CODEX_171 runs the same script against Codex 0.171.
func TestAppServerThreadStartWithoutCredentials(t *testing.T) {
	t.Parallel()
	run := func(who, bin string) (errs []map[string]any, status string) {
		e := newEnv(t)
		// The built-in OpenAI provider on the scripted server; no key, no auth.json.
		cfg := "model = \"gpt-5.5\"\nopenai_base_url = \"" + e.Model.URL() + "/v1\"\napproval_policy = \"never\"\n" +
			"check_for_update_on_startup = false\n[features]\nplugins = false\n"
		if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		e.Model.SetDefault(tk.Status(401))
		c, stop := e.startAppServerOf(bin)
		defer stop()
		var account struct {
			Account            json.RawMessage `json:"account"`
			RequiresOpenaiAuth bool            `json:"requiresOpenaiAuth"`
		}
		c.mustCall("account/read", map[string]any{}, &account)
		if string(account.Account) != "null" || !account.RequiresOpenaiAuth {
			t.Errorf("%s: account/read = %+v", who, account)
		}
		thread := c.startThread(map[string]any{"cwd": e.Workdir})
		c.turn(thread, "hi")
		ms := c.until("turn/completed")
		for _, r := range e.Model.AllRequests() {
			if r.Header.Get("Authorization") != "" {
				t.Errorf("%s: a request carried credentials: %q", who, r.Header.Get("Authorization"))
			}
		}
		if len(e.Model.AllRequests()) == 0 {
			t.Errorf("%s: the turn never called the model", who)
		}
		return pick(ms, "error"), lastTurnStatus(t, ms)
	}
	check := func(who string, errs []map[string]any, status string) {
		t.Helper()
		if status != "failed" {
			t.Errorf("%s: turn status %q, want failed", who, status)
		}
		if len(errs) == 0 {
			t.Fatalf("%s: no error notification", who)
		}
		last := errs[len(errs)-1]
		b, _ := json.Marshal(last)
		info, _ := json.Marshal(last["error"].(map[string]any)["codexErrorInfo"])
		if last["willRetry"] != false || string(info) != `{"httpConnectionFailed":{"httpStatusCode":401}}` ||
			!strings.HasPrefix(last["error"].(map[string]any)["message"].(string), "unexpected status 401 Unauthorized: ") {
			t.Errorf("%s: last error %s", who, b)
		}
	}
	errs, status := run("gocodex", binary)
	check("gocodex", errs, status)
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX_171"); ref != "" {
		refErrs, refStatus := run("codex 0.171", ref)
		check("codex 0.171", refErrs, refStatus)
	}
}
