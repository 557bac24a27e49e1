package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The account methods that need the ChatGPT backend ask it, signed in, at chatgpt_base_url
// (the scripted backend over TLS), and answer the protocol's shapes (the harness validates
// every answer against the schema).
func TestAccountBackendMethodsSignedIn(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	c, _ := w.startAppServer()
	answer := func(method string, params any) string {
		t.Helper()
		raw, em := c.call(method, params)
		if em != nil {
			t.Fatalf("%s: %d %s", method, em.Error.Code, em.Error.Message)
		}
		return string(normalize(t, raw))
	}
	checks := []struct {
		method string
		params any
		want   string
	}{
		{"account/rateLimitResetCredit/consume", map[string]any{"idempotencyKey": "k1"}, `{"outcome":"reset"}`},
		{"account/rateLimitResetCredit/consume", map[string]any{"idempotencyKey": "k1"}, `{"outcome":"alreadyRedeemed"}`},
		{"account/sendAddCreditsNudgeEmail", map[string]any{"creditType": "credits"}, `{"status":"sent"}`},
		{"account/sendAddCreditsNudgeEmail", map[string]any{"creditType": "usage_limit"}, `{"status":"cooldown_active"}`},
		{"account/usage/read", map[string]any{}, `{"dailyUsageBuckets":[{"startDate":"2026-11-26","tokens":1200}],"summary":{"currentStreakDays":3,"lifetimeTokens":123456,"longestRunningTurnSec":95,"longestStreakDays":9,"peakDailyTokens":4000},"threadUsage":null}`},
		{"account/workspaceMessages/read", nil, `{"featureEnabled":true,"messages":[{"archivedAt":null,"createdAt":1795800000,"messageBody":"Codex is available to your workspace.","messageId":"msg-1","messageType":"announcement"}]}`},
		{"account/securitySetup/read", nil, `{"notice":{"accountId":"acct-123","action":{"label":"Set up","url":"https://chatgpt.com/#settings/Security"},"description":"Protect your account.","title":"Turn on multi-factor authentication","userId":"user-1"}}`},
	}
	for _, ch := range checks {
		if got := answer(ch.method, ch.params); got != ch.want {
			t.Errorf("%s:\n got %s\nwant %s", ch.method, got, ch.want)
		}
	}
	// Apps are ChatGPT connectors gocodex does not have: signed in, it says so rather than
	// answer an empty list.
	for _, m := range []string{"app/list", "app/installed"} {
		if _, em := c.call(m, map[string]any{}); em == nil || em.Error.Code != -32600 || !strings.Contains(em.Error.Message, "does not support apps") {
			t.Errorf("%s signed in: %+v", m, em)
		}
	}
	if keys := w.backend.AccountIdempotencyKeys(); len(keys) != 2 || keys[0] != "k1" {
		t.Errorf("idempotency keys sent: %v", keys)
	}
	for _, p := range w.backend.Paths() {
		if strings.Contains(p, "/api/codex/") {
			t.Errorf("a /backend-api base takes the /wham paths, got %s", p)
		}
	}
}

// Signed in but with the backend unreachable, each of them fails with a -32603 that names
// what failed, promptly, and the connection stays usable.
func TestAccountBackendMethodsUnreachable(t *testing.T) {
	w := newChatGPTWorld(t, time.Hour)
	cfg := "model = \"gpt-5.5\"\nchatgpt_base_url = \"" + offlineBackend + "\"\n"
	if err := os.WriteFile(filepath.Join(w.CodexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := w.startAppServer()
	for method, params := range map[string]any{
		"account/rateLimitResetCredit/consume": map[string]any{"idempotencyKey": "k1"},
		"account/sendAddCreditsNudgeEmail":     map[string]any{"creditType": "credits"},
		"account/usage/read":                   map[string]any{},
		"account/workspaceMessages/read":       nil,
		"account/securitySetup/read":           nil,
	} {
		_, em := c.call(method, params)
		if em == nil || em.Error.Code != -32603 || !strings.HasPrefix(em.Error.Message, "failed to ") {
			b, _ := json.Marshal(em)
			t.Errorf("%s offline: %s", method, b)
		}
	}
	c.mustCall("account/read", map[string]any{}, nil)
}
