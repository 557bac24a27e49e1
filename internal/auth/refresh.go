package auth

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
)

// The OAuth client Codex signs in as, and its issuer.
const (
	DefaultIssuer = "https://auth.openai.com"
	ClientID      = "app_EMoamEEZ73f0CkXaXp7hrann"
)

// Endpoints are where tokens are refreshed and revoked. The environment overrides are Codex's.
type Endpoints struct {
	// RefreshURL is CODEX_REFRESH_TOKEN_URL_OVERRIDE; empty derives it from the tokens'
	// issuer (else DefaultIssuer) + /oauth/token.
	RefreshURL string
	// RevokeURL is CODEX_REVOKE_TOKEN_URL_OVERRIDE; empty derives it like RefreshURL.
	RevokeURL string
	// Originator is sent as the `originator` header.
	Originator string
	// HTTP is the client; nil means a default one with a 30 s timeout.
	HTTP *http.Client
}

// EndpointsFromEnv reads Codex's overrides.
func EndpointsFromEnv(getenv func(string) string, originator string) Endpoints {
	return Endpoints{
		RefreshURL: getenv("CODEX_REFRESH_TOKEN_URL_OVERRIDE"),
		RevokeURL:  getenv("CODEX_REVOKE_TOKEN_URL_OVERRIDE"),
		Originator: originator,
	}
}

func (e Endpoints) client() *http.Client {
	c := http.Client{Timeout: 30 * time.Second}
	if e.HTTP != nil {
		c = *e.HTTP // the caller's transport (its CA), with a bound on how long the issuer may take
		c.Timeout = 30 * time.Second
	}
	return &c
}

func issuerOf(t *Tokens) string {
	if t != nil && t.Provenance != nil && t.Provenance.Issuer != "" {
		return strings.TrimRight(t.Provenance.Issuer, "/")
	}
	return DefaultIssuer
}

func clientOf(t *Tokens) string {
	if t != nil && t.Provenance != nil && t.Provenance.ClientID != "" {
		return t.Provenance.ClientID
	}
	return ClientID
}

// RefreshReason is sent as refresh_reason.
type RefreshReason string

const (
	RefreshProactive    RefreshReason = "proactive_expiry"
	RefreshUnauthorized RefreshReason = "unauthorized_recovery"
	RefreshForced       RefreshReason = "forced"
)

// RefreshError is a refresh the issuer refused; its message tells the person what to do.
type RefreshError struct {
	Status int
	Code   string
}

func (e *RefreshError) Error() string {
	switch e.Code {
	case "refresh_token_expired":
		return "Your access token could not be refreshed because your refresh token has expired. Please log out and sign in again."
	case "refresh_token_reused":
		return "Your access token could not be refreshed because your refresh token was already used. Please log out and sign in again."
	case "refresh_token_invalidated":
		return "Your access token could not be refreshed because your refresh token was revoked. Please log out and sign in again."
	}
	if e.Status == http.StatusUnauthorized {
		return "Your access token could not be refreshed. Please log out and sign in again."
	}
	return fmt.Sprintf("token refresh failed: the issuer answered %d %s", e.Status, http.StatusText(e.Status))
}

// Refresh exchanges the stored refresh token for new tokens and stores them. It holds the
// store's lock throughout: when another process refreshed first (the stored refresh token is
// no longer the one the caller saw), its tokens are used and nothing is sent. seen is the
// refresh token the caller's copy has ("" to refresh whatever is stored).
func Refresh(ctx context.Context, s *Store, e Endpoints, reason RefreshReason, seen string, now time.Time) (*File, error) {
	var out *File
	err := s.Update(func(cur *File) (*File, error) {
		if cur == nil || cur.Mode != ModeChatGPT || cur.Tokens == nil {
			return nil, ErrNotLoggedIn
		}
		if seen != "" && cur.Tokens.RefreshToken != seen {
			out = cur // someone else refreshed while we waited for the lock
			return nil, nil
		}
		next, err := requestRefresh(ctx, e, cur.Tokens, reason)
		if err != nil {
			return nil, err
		}
		f := *cur
		t := *cur.Tokens
		t.IDToken, t.AccessToken = next.IDToken, next.AccessToken
		if next.RefreshToken != "" {
			t.RefreshToken = next.RefreshToken
		}
		f.Tokens = &t
		at := now.UTC()
		f.LastRefresh = &at
		out = &f
		return &f, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type tokenResponse struct {
	IDToken      string `json:"id_token"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// requestRefresh is Codex's refresh request: a JSON body with its refresh_reason, which
// golang.org/x/oauth2 (form-encoded, RFC 6749) cannot send; the sign-in's code exchange does
// run on oauth2 (exchangeCode).
func requestRefresh(ctx context.Context, e Endpoints, t *Tokens, reason RefreshReason) (*tokenResponse, error) {
	url := e.RefreshURL
	if url == "" {
		url = issuerOf(t) + "/oauth/token"
	}
	body, _ := json.Marshal(map[string]string{
		"client_id": clientOf(t), "grant_type": "refresh_token",
		"refresh_reason": string(reason), "refresh_token": t.RefreshToken,
	})
	data, status, err := postJSON(ctx, e, url, body)
	if err != nil {
		return nil, fmt.Errorf("token refresh: %w", err)
	}
	if status != http.StatusOK {
		return nil, &RefreshError{Status: status, Code: errorCode(data)}
	}
	var r tokenResponse
	if err := json.Unmarshal(data, &r); err != nil || r.AccessToken == "" || r.IDToken == "" {
		return nil, errors.New("token refresh: the issuer's answer has no id_token and access_token")
	}
	return &r, nil
}

// Revoke asks the issuer to revoke the refresh token (logout). Failure is reported but does
// not keep the caller from removing the credentials.
func Revoke(ctx context.Context, e Endpoints, t *Tokens) error {
	if t == nil || t.RefreshToken == "" {
		return nil
	}
	url := e.RevokeURL
	if url == "" {
		url = issuerOf(t) + "/oauth/revoke"
	}
	body, _ := json.Marshal(map[string]string{"token": t.RefreshToken, "token_type_hint": "refresh_token", "client_id": clientOf(t)})
	_, status, err := postJSON(ctx, e, url, body)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("revoke token: the issuer answered %d %s", status, http.StatusText(status))
	}
	return nil
}

func postJSON(ctx context.Context, e Endpoints, url string, body []byte) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.Originator != "" {
		req.Header.Set("originator", e.Originator)
	}
	resp, err := e.client().Do(req)
	if err != nil {
		return nil, 0, redactURLError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return data, resp.StatusCode, err
}

// errorCode reads {"error":{"code":...}} or {"error":"..."} from an issuer's error answer.
func errorCode(data []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	var obj struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(v.Error, &obj) == nil && obj.Code != "" {
		return obj.Code
	}
	var s string
	_ = json.Unmarshal(v.Error, &s)
	return s
}

// redactURLError drops the query of a failed request's URL from its error: a query may carry
// a code or token.
func redactURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		msg := err.Error()
		if i := strings.IndexByte(msg, '?'); i >= 0 {
			if j := strings.IndexAny(msg[i:], "\": "); j >= 0 {
				return errors.New(msg[:i] + msg[i+j:])
			}
			return errors.New(msg[:i])
		}
	}
	return err
}
