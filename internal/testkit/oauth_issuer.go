package testkit

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// OAuthIssuer plays auth.openai.com on 127.0.0.1 for the sign-in flows Codex 0.169 uses
// (../shared/reference/codex-0.169-observed/signin.md): the browser flow's authorize page and
// code exchange, the id-token exchange for an API key, the device flow, refresh with rotating
// refresh tokens, and revocation. Every request is recorded.
//
//	iss := testkit.NewOAuthIssuer(t)
//	// gocodex login --experimental_issuer iss.URL() ...; follow iss.Authorize(url) ...
type OAuthIssuer struct {
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []IssuerRequest
	codes    map[string]authCode // authorization code -> its PKCE challenge and redirect
	live     map[string]bool     // refresh tokens that may be used (each once)
	revoked  map[string]bool
	serial   int
	refresh  int
	pending  int // device polls still answered "pending"
	devices  map[string]string
	faults   map[string]Response
	lifetime time.Duration

	// Account is what the tokens say about the person.
	Account IssuerAccount
}

// IssuerAccount are the claims the issuer's id tokens carry.
type IssuerAccount struct {
	Email, Plan, UserID, AccountID string
}

// IssuerRequest is one recorded request.
type IssuerRequest struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	Form         url.Values     // form-encoded bodies
	JSON         map[string]any // JSON bodies
}

type authCode struct{ challenge, redirect string }

// NewOAuthIssuer starts the issuer; it stops when the test ends.
func NewOAuthIssuer(t TB) *OAuthIssuer {
	i := &OAuthIssuer{codes: map[string]authCode{}, live: map[string]bool{}, revoked: map[string]bool{},
		devices: map[string]string{}, faults: map[string]Response{}, lifetime: time.Hour,
		Account: IssuerAccount{Email: "user@example.com", Plan: "plus", UserID: "user-abc", AccountID: "acct-123"}}
	i.srv = httptest.NewServer(http.HandlerFunc(i.serve))
	t.Cleanup(i.srv.Close)
	return i
}

// URL is the issuer's base (what --experimental_issuer takes).
func (i *OAuthIssuer) URL() string { return i.srv.URL }

// SetAccessLifetime sets how long new access tokens live (their exp claim).
func (i *OAuthIssuer) SetAccessLifetime(d time.Duration) {
	i.mu.Lock()
	i.lifetime = d
	i.mu.Unlock()
}

// Fail makes every request to path answer r (status and body) until cleared with a zero r.
func (i *OAuthIssuer) Fail(path string, r Response) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if r.Status == 0 {
		delete(i.faults, path)
		return
	}
	i.faults[path] = r
}

// DevicePending makes the next n device polls answer "pending" (403).
func (i *OAuthIssuer) DevicePending(n int) {
	i.mu.Lock()
	i.pending = n
	i.mu.Unlock()
}

// Refreshes counts the successful refresh_token grants.
func (i *OAuthIssuer) Refreshes() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.refresh
}

// Requests returns what was received so far.
func (i *OAuthIssuer) Requests() []IssuerRequest {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]IssuerRequest(nil), i.reqs...)
}

// IssueTokens mints a token set as a sign-in would (for tests that start signed in); its
// refresh token is live.
func (i *OAuthIssuer) IssueTokens() (idToken, accessToken, refreshToken string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.mintLocked()
}

func (i *OAuthIssuer) mintLocked() (string, string, string) {
	i.serial++
	a := i.Account
	id := UnsignedJWT(map[string]any{"email": a.Email, "https://api.openai.com/auth": map[string]any{
		"chatgpt_plan_type": a.Plan, "chatgpt_user_id": a.UserID, "chatgpt_account_id": a.AccountID}})
	access := UnsignedJWT(map[string]any{"exp": time.Now().Add(i.lifetime).Unix(), "n": i.serial})
	refresh := fmt.Sprintf("rt-%d", i.serial)
	i.live[refresh] = true
	return id, access, refresh
}

// UnsignedJWT is a three-part token with claims as its payload and no signature check to pass
// (Codex does not verify ChatGPT tokens).
func UnsignedJWT(claims map[string]any) string {
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	body, _ := json.Marshal(claims)
	return head + "." + base64.RawURLEncoding.EncodeToString(body) + ".sig"
}

func (i *OAuthIssuer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rec := IssuerRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		rec.Form, _ = url.ParseQuery(string(body))
	} else if len(body) > 0 {
		_ = json.Unmarshal(body, &rec.JSON)
	}
	i.mu.Lock()
	i.reqs = append(i.reqs, rec)
	fault, faulty := i.faults[r.URL.Path]
	i.mu.Unlock()
	if faulty {
		w.WriteHeader(fault.Status)
		io.WriteString(w, fault.Body)
		return
	}
	switch r.URL.Path {
	case "/oauth/authorize":
		i.authorize(w, r)
	case "/oauth/token":
		i.token(w, rec)
	case "/oauth/revoke":
		i.mu.Lock()
		if tok, _ := rec.JSON["token"].(string); tok != "" {
			i.revoked[tok] = true
		}
		i.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{})
	case "/api/accounts/deviceauth/usercode":
		i.mu.Lock()
		i.serial++
		id := fmt.Sprintf("dev-%d", i.serial)
		i.devices[id] = "ABCD-EFGH"
		i.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"device_auth_id": id, "user_code": "ABCD-EFGH", "interval": "0.05"})
	case "/api/accounts/deviceauth/token":
		i.deviceToken(w, rec)
	default:
		http.NotFound(w, r)
	}
}

// authorize answers the sign-in page at once (the person "signs in"): a redirect to the
// client's callback with a code bound to the PKCE challenge.
func (i *OAuthIssuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("redirect_uri") == "" || q.Get("state") == "" || q.Get("client_id") == "" {
		http.Error(w, "bad authorize request", http.StatusBadRequest)
		return
	}
	i.mu.Lock()
	i.serial++
	code := fmt.Sprintf("code-%d", i.serial)
	i.codes[code] = authCode{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
	i.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
}

func (i *OAuthIssuer) token(w http.ResponseWriter, rec IssuerRequest) {
	i.mu.Lock()
	defer i.mu.Unlock()
	grant := rec.Form.Get("grant_type")
	if grant == "" {
		grant, _ = rec.JSON["grant_type"].(string)
	}
	switch grant {
	case "authorization_code":
		c, ok := i.codes[rec.Form.Get("code")]
		sum := sha256.Sum256([]byte(rec.Form.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge || rec.Form.Get("redirect_uri") != c.redirect {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant"})
			return
		}
		delete(i.codes, rec.Form.Get("code"))
		id, access, refresh := i.mintLocked()
		writeJSON(w, http.StatusOK, map[string]any{"id_token": id, "access_token": access, "refresh_token": refresh})
	case "urn:ietf:params:oauth:grant-type:token-exchange":
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "sk-exchanged-from-id-token"})
	case "refresh_token":
		rt, _ := rec.JSON["refresh_token"].(string)
		switch {
		case i.revoked[rt]:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": "refresh_token_invalidated"}})
		case !i.live[rt]:
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": "refresh_token_reused"}})
		default:
			delete(i.live, rt)
			i.refresh++
			id, access, refresh := i.mintLocked()
			writeJSON(w, http.StatusOK, map[string]any{"id_token": id, "access_token": access, "refresh_token": refresh})
		}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
	}
}

// deviceToken answers a poll: pending while DevicePending polls remain, then a code whose
// PKCE pair the issuer made itself (as auth.openai.com does for the device flow).
func (i *OAuthIssuer) deviceToken(w http.ResponseWriter, rec IssuerRequest) {
	i.mu.Lock()
	defer i.mu.Unlock()
	id, _ := rec.JSON["device_auth_id"].(string)
	code, _ := rec.JSON["user_code"].(string)
	if want, ok := i.devices[id]; !ok || want != code {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unknown device code"})
		return
	}
	if i.pending > 0 {
		i.pending--
		writeJSON(w, http.StatusForbidden, map[string]any{"error": "authorization_pending"})
		return
	}
	verifier := fmt.Sprintf("verifier-%d-0123456789abcdefghijklmnopqrstuvwxyz", i.serial)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	i.serial++
	auth := fmt.Sprintf("code-%d", i.serial)
	i.codes[auth] = authCode{challenge: challenge, redirect: i.srv.URL + "/deviceauth/callback"}
	writeJSON(w, http.StatusOK, map[string]any{"authorization_code": auth, "code_challenge": challenge, "code_verifier": verifier})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
