package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AccountsCheckURL is where the workspace routing check goes: {base}/wham/accounts/check for a
// /backend-api base, else {base}/api/codex/accounts/check (as Codex derives it).
func AccountsCheckURL(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.Contains(base, "/backend-api") {
		return base + "/wham/accounts/check"
	}
	return base + "/api/codex/accounts/check"
}

// checkRouting asks the backend which account and origin serve this sign-in. Codex fails the
// turn when it cannot; so does this.
func (c *ChatGPT) checkRouting(ctx context.Context, t *Tokens) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, AccountsCheckURL(c.opts.BaseURL), nil)
	if err != nil {
		return fmt.Errorf("workspace routing discovery failed: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+t.AccessToken)
	if id := c.accountID(t); id != "" {
		req.Header.Set("ChatGPT-Account-Id", id)
	}
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	resp, err := c.ep.client().Do(req)
	if err != nil {
		return fmt.Errorf("workspace routing discovery failed: %w", redactURLError(err))
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("workspace routing discovery failed: %s answered %d %s", req.URL.Path, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	var v struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("workspace routing discovery failed: %s did not answer JSON", req.URL.Path)
	}
	return nil
}
