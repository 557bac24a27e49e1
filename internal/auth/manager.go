package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// refreshWindow is how close to its expiry an access token is refreshed before use (Codex
// refreshes at about five minutes).
const refreshWindow = 5 * time.Minute

// ChatGPT supplies ChatGPT-plan credentials to model requests: the access token as a bearer
// and the account id, refreshed before it expires and once after a second consecutive 401.
// It is safe for concurrent use; one per process and store.
type ChatGPT struct {
	store *Store
	ep    Endpoints
	opts  ChatGPTOptions

	mu           sync.Mutex
	file         *File
	unauthorized int // consecutive 401s since the last success
	routed       bool
}

// ChatGPTOptions configure the authorizer.
type ChatGPTOptions struct {
	// BaseURL is chatgpt_base_url; when set, the workspace routing check
	// (GET …/wham/accounts/check) runs before the first request, as in Codex.
	BaseURL string
	// UserAgent is sent with the routing check.
	UserAgent string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives a failed proactive refresh (the old token may still work); nil discards.
	Logger *slog.Logger
}

// NewChatGPT returns the authorizer for the ChatGPT credentials in store.
func NewChatGPT(store *Store, ep Endpoints, o ChatGPTOptions) *ChatGPT {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &ChatGPT{store: store, ep: ep, opts: o}
}

func (c *ChatGPT) now() time.Time { return c.opts.Now() }

// tokens returns the current tokens, loading them on first use.
func (c *ChatGPT) tokens() (*Tokens, error) {
	if c.file == nil {
		f, err := c.store.Load()
		if err != nil {
			return nil, err
		}
		c.file = f
	}
	if c.file.Mode != ModeChatGPT || c.file.Tokens == nil || c.file.Tokens.AccessToken == "" {
		return nil, errors.New("auth.json holds no ChatGPT tokens: run `gocodex login`")
	}
	return c.file.Tokens, nil
}

// Authorize sets Authorization and ChatGPT-Account-Id on h, refreshing the access token first
// when it expires within five minutes. A failed proactive refresh is logged, not fatal (the
// token may still be good), as in Codex.
func (c *ChatGPT) Authorize(ctx context.Context, h http.Header) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tokens()
	if err != nil {
		return err
	}
	if exp, ok := Expiry(t.AccessToken); ok && exp.Sub(c.now()) < refreshWindow {
		f, rerr := Refresh(ctx, c.store, c.ep, RefreshProactive, t.RefreshToken, c.now())
		if rerr == nil {
			c.file = f
			t = f.Tokens
		} else {
			c.opts.Logger.Error("Failed to refresh token", "err", rerr)
		}
	}
	if !c.routed && c.opts.BaseURL != "" {
		if err := c.checkRouting(ctx, t); err != nil {
			return err
		}
		c.routed = true
	}
	h.Set("Authorization", "Bearer "+t.AccessToken)
	if id := c.accountID(t); id != "" {
		h.Set("ChatGPT-Account-Id", id)
	}
	return nil
}

func (c *ChatGPT) accountID(t *Tokens) string {
	if t.AccountID != nil && *t.AccountID != "" {
		return *t.AccountID
	}
	if cl, err := IDClaims(t.IDToken); err == nil {
		return cl.AccountID
	}
	return ""
}

// Unauthorized is told the backend answered 401. The first time it reloads the credentials
// from disk (another process may have refreshed them); the second it refreshes. It reports
// whether the request should be sent again at once; after that, 401s are ordinary errors.
func (c *ChatGPT) Unauthorized(ctx context.Context) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unauthorized++
	switch c.unauthorized {
	case 1:
		f, err := c.store.Load()
		if err != nil {
			return false, err
		}
		c.file = f
		return true, nil
	case 2:
		seen := ""
		if c.file != nil && c.file.Tokens != nil {
			seen = c.file.Tokens.RefreshToken
		}
		f, err := Refresh(ctx, c.store, c.ep, RefreshUnauthorized, seen, c.now())
		if err != nil {
			return false, err
		}
		c.file = f
		c.routed = false // Codex checks the routing again with the new token
		return true, nil
	}
	return false, nil
}

// Succeeded ends a run of 401s.
func (c *ChatGPT) Succeeded() {
	c.mu.Lock()
	c.unauthorized = 0
	c.mu.Unlock()
}

// ForceRefresh refreshes now (app-server account/read {refreshToken: true}).
func (c *ChatGPT) ForceRefresh(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := Refresh(ctx, c.store, c.ep, RefreshForced, "", c.now())
	if err != nil {
		return err
	}
	c.file = f
	return nil
}
