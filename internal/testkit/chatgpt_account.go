package testkit

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The account routes of the ChatGPT backend the app-server's account methods call (paths as
// Codex 0.169 derives them from a /backend-api base). Their answers are fixed and small;
// every request must carry a bearer token.

// AccountIdempotencyKeys are the idempotency keys reset-credit consumptions sent, in order.
func (b *ChatGPTServer) AccountIdempotencyKeys() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.idempotencyKeys...)
}

// serveAccount answers an account route; false when r is not one.
func (b *ChatGPTServer) serveAccount(w http.ResponseWriter, r *http.Request) bool {
	path, ok := strings.CutPrefix(r.URL.Path, "/backend-api/wham/")
	if !ok {
		return false
	}
	route := r.Method + " " + path
	switch route {
	case "POST rate-limit-reset-credits/consume", "POST accounts/send_add_credits_nudge_email",
		"GET profiles/me", "GET workspace-messages", "GET security-setup":
	default:
		return false
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": "Unauthorized"}})
		return true
	}
	switch route {
	case "POST rate-limit-reset-credits/consume":
		var body struct {
			IdempotencyKey string `json:"idempotency_key"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		b.mu.Lock()
		seen := false
		for _, k := range b.idempotencyKeys {
			seen = seen || k == body.IdempotencyKey
		}
		b.idempotencyKeys = append(b.idempotencyKeys, body.IdempotencyKey)
		b.mu.Unlock()
		outcome := "reset"
		if seen {
			outcome = "already_redeemed"
		}
		writeJSON(w, http.StatusOK, map[string]any{"outcome": outcome})
	case "POST accounts/send_add_credits_nudge_email":
		b.mu.Lock()
		b.nudges++
		status := "sent"
		if b.nudges > 1 {
			status = "cooldown_active"
		}
		b.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"status": status})
	case "GET profiles/me":
		writeJSON(w, http.StatusOK, map[string]any{"lifetime_tokens": 123456, "peak_daily_tokens": 4000,
			"longest_running_turn_sec": 95, "current_streak_days": 3, "longest_streak_days": 9,
			"daily_usage_buckets": []any{map[string]any{"start_date": "2026-11-26", "tokens": 1200}}})
	case "GET workspace-messages":
		writeJSON(w, http.StatusOK, map[string]any{"messages": []any{map[string]any{"message_id": "msg-1",
			"message_type": "announcement", "message_body": "Codex is available to your workspace.", "created_at": 1795800000}}})
	case "GET security-setup":
		writeJSON(w, http.StatusOK, map[string]any{"notice": map[string]any{"account_id": "acct-123", "user_id": "user-1",
			"title": "Turn on multi-factor authentication", "description": "Protect your account.",
			"action": map[string]any{"label": "Set up", "url": "https://chatgpt.com/#settings/Security"}}})
	}
	return true
}
