package appserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
)

// The account methods that ask the ChatGPT backend (chatgpt_base_url) about the signed-in
// account: usage, workspace messages, the security-setup reminder, rate-limit reset credits
// and the add-credits nudge. Without a ChatGPT sign-in they answer Codex 0.169's -32600
// "codex account authentication required ..."; a backend that cannot be reached is a
// -32603 naming the URL. The backend's paths are Codex's: {base}/wham/... for a
// /backend-api base, {base}/api/codex/... otherwise.

// backendTimeout bounds one backend request.
const backendTimeout = 20 * time.Second

// chatgptBackend is a signed-in ChatGPT account's view of the backend.
type chatgptBackend struct {
	base      string
	client    *http.Client
	authorize func(ctx context.Context, h http.Header) error
}

// errNoChatGPTAccount is Codex's answer when the backend needs a ChatGPT sign-in.
func errNoChatGPTAccount(what string) error {
	return InvalidRequest("codex account authentication required " + what)
}

// accountBackend is the backend for the current ChatGPT sign-in, or false without one.
func accountBackend(s *Server) (*chatgptBackend, bool) {
	base := config.DefaultChatGPTBaseURL
	if cfg, err := s.loadThreadConfig(threadOverrides{}); err == nil && cfg.ChatGPTBaseURL != "" {
		base = cfg.ChatGPTBaseURL
	}
	hc, _ := auth.HTTPClient(s.opts.Getenv)
	if hc == nil {
		hc = s.opts.HTTPClient
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	b := &chatgptBackend{base: strings.TrimRight(base, "/"), client: hc}
	if ext := s.externalAuth(); ext != nil {
		ext.mu.Lock()
		access, account := ext.access, ext.accountID
		ext.mu.Unlock()
		b.authorize = func(ctx context.Context, h http.Header) error {
			h.Set("Authorization", "Bearer "+access)
			h.Set("ChatGPT-Account-Id", account)
			return nil
		}
		return b, true
	}
	store := accountStore(s)
	f, err := store.Load()
	if err != nil || f.Mode != auth.ModeChatGPT || f.Tokens == nil {
		return nil, false
	}
	ep := auth.EndpointsFromEnv(s.opts.Getenv, "codex_cli_rs")
	ep.HTTP = hc
	b.authorize = auth.NewChatGPT(store, ep, auth.ChatGPTOptions{}).Authorize
	return b, true
}

// url is where path lives, as Codex derives it from the base.
func (b *chatgptBackend) url(path string) string {
	if strings.Contains(b.base, "/backend-api") {
		return b.base + "/wham/" + path
	}
	return b.base + "/api/codex/" + path
}

// errBackendStatus is a backend answer that is not a success.
type errBackendStatus struct {
	status int
	body   string
}

func (e *errBackendStatus) Error() string {
	return fmt.Sprintf("the ChatGPT backend answered %d: %s", e.status, e.body)
}

// do sends one request (body as JSON when not nil) and decodes the answer into out.
func (b *chatgptBackend) do(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, backendTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.url(path), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := b.authorize(ctx, req.Header); err != nil {
		return err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		text := strings.TrimSpace(string(raw))
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		return &errBackendStatus{status: resp.StatusCode, body: text}
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("unexpected answer from %s: %w", b.url(path), err)
	}
	return nil
}

// backendFailed is the -32603 a failed backend request answers.
func backendFailed(what string, err error) error {
	return internalError("failed to " + what + ": " + err.Error())
}

// snakeToCamel turns a backend enum value (no_credit) into the protocol's (noCredit).
func snakeToCamel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// AccountRateLimitResetCreditConsume answers account/rateLimitResetCredit/consume.
func (a *api) AccountRateLimitResetCreditConsume(ctx context.Context, c *Conn, p ConsumeAccountRateLimitResetCreditParams) (ConsumeAccountRateLimitResetCreditResponse, error) {
	s := a.s
	b, ok := accountBackend(s)
	if !ok {
		return ConsumeAccountRateLimitResetCreditResponse{}, errNoChatGPTAccount("for rate limit reset credits")
	}
	var out struct {
		Outcome string `json:"outcome"`
	}
	body := map[string]any{"idempotency_key": p.IdempotencyKey, "credit_id": p.CreditID}
	if err := b.do(ctx, http.MethodPost, "rate-limit-reset-credits/consume", body, &out); err != nil {
		return ConsumeAccountRateLimitResetCreditResponse{}, backendFailed("consume a rate limit reset credit", err)
	}
	switch o := snakeToCamel(out.Outcome); o {
	case "reset", "nothingToReset", "noCredit", "alreadyRedeemed":
		return ConsumeAccountRateLimitResetCreditResponse{Outcome: ConsumeAccountRateLimitResetCreditOutcome(o)}, nil
	}
	return ConsumeAccountRateLimitResetCreditResponse{}, internalError("failed to consume a rate limit reset credit: unknown outcome " + fmt.Sprintf("%q", out.Outcome))
}

// AccountSendAddCreditsNudgeEmail answers account/sendAddCreditsNudgeEmail.
func (a *api) AccountSendAddCreditsNudgeEmail(ctx context.Context, c *Conn, p SendAddCreditsNudgeEmailParams) (SendAddCreditsNudgeEmailResponse, error) {
	s := a.s
	if p.CreditType != "credits" && p.CreditType != "usage_limit" {
		return SendAddCreditsNudgeEmailResponse{}, InvalidRequest("Invalid request: unknown variant `" + string(p.CreditType) + "`, expected `credits` or `usage_limit`")
	}
	b, ok := accountBackend(s)
	if !ok {
		return SendAddCreditsNudgeEmailResponse{}, errNoChatGPTAccount("to notify workspace owner")
	}
	var out struct {
		Status string `json:"status"`
	}
	if err := b.do(ctx, http.MethodPost, "accounts/send_add_credits_nudge_email", map[string]string{"credit_type": string(p.CreditType)}, &out); err != nil {
		return SendAddCreditsNudgeEmailResponse{}, backendFailed("notify the workspace owner", err)
	}
	if out.Status != "sent" && out.Status != "cooldown_active" {
		return SendAddCreditsNudgeEmailResponse{}, internalError("failed to notify the workspace owner: unknown status " + fmt.Sprintf("%q", out.Status))
	}
	return SendAddCreditsNudgeEmailResponse{Status: AddCreditsNudgeEmailStatus(out.Status)}, nil
}

// AccountUsageRead answers account/usage/read.
func (a *api) AccountUsageRead(ctx context.Context, c *Conn, p GetAccountTokenUsageParams) (GetAccountTokenUsageResponse, error) {
	s := a.s
	b, ok := accountBackend(s)
	if !ok {
		return GetAccountTokenUsageResponse{}, errNoChatGPTAccount("to read token usage")
	}
	var stats struct {
		LifetimeTokens        *int64 `json:"lifetime_tokens"`
		PeakDailyTokens       *int64 `json:"peak_daily_tokens"`
		LongestRunningTurnSec *int64 `json:"longest_running_turn_sec"`
		CurrentStreakDays     *int64 `json:"current_streak_days"`
		LongestStreakDays     *int64 `json:"longest_streak_days"`
		DailyUsageBuckets     []struct {
			StartDate string `json:"start_date"`
			Tokens    int64  `json:"tokens"`
		} `json:"daily_usage_buckets"`
	}
	if err := b.do(ctx, http.MethodGet, "profiles/me", nil, &stats); err != nil {
		return GetAccountTokenUsageResponse{}, backendFailed("read token usage", err)
	}
	out := GetAccountTokenUsageResponse{Summary: AccountTokenUsageSummary{CurrentStreakDays: stats.CurrentStreakDays, LifetimeTokens: stats.LifetimeTokens,
		LongestRunningTurnSec: stats.LongestRunningTurnSec, LongestStreakDays: stats.LongestStreakDays, PeakDailyTokens: stats.PeakDailyTokens}}
	if stats.DailyUsageBuckets != nil {
		out.DailyUsageBuckets = []AccountTokenUsageDailyBucket{}
		for _, d := range stats.DailyUsageBuckets {
			out.DailyUsageBuckets = append(out.DailyUsageBuckets, AccountTokenUsageDailyBucket{StartDate: d.StartDate, Tokens: d.Tokens})
		}
	}
	return out, nil
}

// AccountWorkspaceMessagesRead answers account/workspaceMessages/read.
func (a *api) AccountWorkspaceMessagesRead(ctx context.Context, c *Conn) (GetWorkspaceMessagesResponse, error) {
	s := a.s
	b, ok := accountBackend(s)
	if !ok {
		return GetWorkspaceMessagesResponse{}, errNoChatGPTAccount("to read workspace messages")
	}
	var out struct {
		Messages []struct {
			MessageID   string `json:"message_id"`
			MessageType string `json:"message_type"`
			MessageBody string `json:"message_body"`
			CreatedAt   *int64 `json:"created_at"`
			ArchivedAt  *int64 `json:"archived_at"`
		} `json:"messages"`
	}
	err := b.do(ctx, http.MethodGet, "workspace-messages", nil, &out)
	var st *errBackendStatus
	if errors.As(err, &st) && st.status == http.StatusNotFound {
		// The route is not offered to this client.
		return GetWorkspaceMessagesResponse{FeatureEnabled: false, Messages: []WorkspaceMessage{}}, nil
	}
	if err != nil {
		return GetWorkspaceMessagesResponse{}, backendFailed("read workspace messages", err)
	}
	msgs := []WorkspaceMessage{}
	for _, m := range out.Messages {
		kind := m.MessageType
		if kind != "headline" && kind != "announcement" {
			kind = "unknown"
		}
		msgs = append(msgs, WorkspaceMessage{ArchivedAt: m.ArchivedAt, CreatedAt: m.CreatedAt, MessageBody: m.MessageBody, MessageID: m.MessageID, MessageType: WorkspaceMessageType(kind)})
	}
	return GetWorkspaceMessagesResponse{FeatureEnabled: true, Messages: msgs}, nil
}

// AccountSecuritySetupRead answers account/securitySetup/read.
func (a *api) AccountSecuritySetupRead(ctx context.Context, c *Conn) (GetAccountSecuritySetupResponse, error) {
	s := a.s
	// As Codex: an account without a reminder, or none signed in, has no notice.
	b, ok := accountBackend(s)
	if !ok {
		return GetAccountSecuritySetupResponse{}, nil
	}
	var out struct {
		Notice *struct {
			AccountID   string `json:"account_id"`
			UserID      string `json:"user_id"`
			Title       string `json:"title"`
			Description string `json:"description"`
			Action      struct {
				Label string `json:"label"`
				URL   string `json:"url"`
			} `json:"action"`
		} `json:"notice"`
	}
	if err := b.do(ctx, http.MethodGet, "security-setup", nil, &out); err != nil {
		return GetAccountSecuritySetupResponse{}, backendFailed("read the account's security setup", err)
	}
	if out.Notice == nil {
		return GetAccountSecuritySetupResponse{}, nil
	}
	n := AccountSecuritySetupNotice{AccountID: out.Notice.AccountID, Description: out.Notice.Description, Title: out.Notice.Title, UserID: out.Notice.UserID}
	n.Action.Label, n.Action.URL = out.Notice.Action.Label, out.Notice.Action.URL
	return GetAccountSecuritySetupResponse{Notice: &n}, nil
}
