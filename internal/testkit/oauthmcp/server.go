// Package oauthmcp is a scripted MCP server behind OAuth for the tests (its own package so
// that only they pull in the MCP SDK's server).
package oauthmcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a scripted MCP server behind OAuth, as hosted servers (Linear, Sentry,
// Notion) are: its streamable-HTTP endpoint answers 401 with RFC 9728 resource metadata
// until a request carries a token it issued; it is its own authorization server (RFC 8414
// metadata, RFC 7591 dynamic registration, the authorization code flow with PKCE S256 checked,
// rotating refresh tokens). Its tool `whoami` answers with the token's subject, so a caller
// sees that the bearer reached the tool.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu      sync.Mutex
	clients map[string][]string // client id -> redirect URIs
	codes   map[string]oauthCode
	access  map[string]time.Time // access token -> expiry
	refresh map[string]bool      // refresh token -> still valid
	log     []string             // "METHOD path" of every request, in order
	// resources are the resource parameters of each authorization request, in order.
	resources [][]string
	// AccessTTL is how long an access token lives (default an hour).
	AccessTTL time.Duration
	// garbage makes the authorization-server metadata unparsable; tokenError makes the token
	// endpoint answer 400 invalid_grant to every request (SetFaults).
	garbage, tokenError atomic.Bool
}

// SetFaults switches the authorization server's faults: unparsable metadata, a refusing
// token endpoint.
func (s *Server) SetFaults(garbageMetadata, refuseTokens bool) {
	s.garbage.Store(garbageMetadata)
	s.tokenError.Store(refuseTokens)
}

type oauthCode struct {
	client, redirect, challenge, resource string
}

// New starts the server on 127.0.0.1; it stops with the test.
func New(t testing.TB) *Server {
	s := &Server{t: t, clients: map[string][]string{}, codes: map[string]oauthCode{},
		access: map[string]time.Time{}, refresh: map[string]bool{}, AccessTTL: time.Hour}
	tools := sdk.NewServer(&sdk.Implementation{Name: "oauth-test", Version: "1.0"}, nil)
	sdk.AddTool(tools, &sdk.Tool{Name: "whoami", Description: "Says which token the call carried."},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "authorized as e2e-user"}}}, nil, nil
		})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return tools }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mux.Handle("/mcp", s.requireBearer(mcpHandler))
	// Set before it starts: the handlers read s.srv, and a request from another process has
	// no ordering with this goroutine that the race detector could see.
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the MCP endpoint a configuration names.
func (s *Server) URL() string { return s.srv.URL + "/mcp" }

// Requests are "METHOD path" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// AuthorizeResources are the resource parameters of each authorization request so far.
func (s *Server) AuthorizeResources() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.resources...)
}

// RevokeRefreshTokens makes every refresh token issued so far invalid.
func (s *Server) RevokeRefreshTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.refresh {
		s.refresh[k] = false
	}
}

// ExpireAccessTokens makes every access token issued so far expired, so the next call
// needs a refresh.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.access {
		s.access[k] = time.Time{}
	}
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"resource": s.URL(), "authorization_servers": []string{s.srv.URL},
		"scopes_supported": []string{"read"}, "bearer_methods_supported": []string{"header"},
	})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	if s.garbage.Load() {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("<html>not metadata"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": s.srv.URL, "authorization_endpoint": s.srv.URL + "/authorize",
		"token_endpoint": s.srv.URL + "/token", "registration_endpoint": s.srv.URL + "/register",
		"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported": []string{"read"},
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta map[string]any
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&meta) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_client_metadata"})
		return
	}
	var redirects []string
	if rs, ok := meta["redirect_uris"].([]any); ok {
		for _, u := range rs {
			if s, ok := u.(string); ok {
				redirects = append(redirects, s)
			}
		}
	}
	if len(redirects) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri"})
		return
	}
	id := "client-" + randomHex(8)
	s.mu.Lock()
	s.clients[id] = redirects
	s.mu.Unlock()
	meta["client_id"] = id
	meta["client_id_issued_at"] = time.Now().Unix()
	writeJSON(w, http.StatusCreated, meta)
}

// authorize is what the person's browser opens: with a known client, a registered redirect
// and an S256 challenge it redirects back with a code and the state.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	redirects, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	registered := false
	for _, u := range redirects {
		registered = registered || u == q.Get("redirect_uri")
	}
	if !known || !registered || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := "code-" + randomHex(8)
	s.mu.Lock()
	s.resources = append(s.resources, q["resource"])
	s.codes[code] = oauthCode{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	s.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	if s.tokenError.Load() {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "scripted refusal"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		c, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || c.client != r.PostForm.Get("client_id") || c.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "code, client, redirect or PKCE verifier do not match"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		if !s.refresh[rt] {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "refresh token revoked or unknown"})
			return
		}
		s.refresh[rt] = false // rotated: each refresh token works once
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := "at-"+randomHex(12), "rt-"+randomHex(12)
	s.access[access] = time.Now().Add(s.AccessTTL)
	s.refresh[refresh] = true
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(s.AccessTTL.Seconds()), "refresh_token": refresh, "scope": "read"})
}

// requireBearer lets a request through only with an access token this server issued and
// that has not expired; otherwise 401 with the resource metadata's address.
func (s *Server) requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		exp, ok := s.access[tok]
		s.mu.Unlock()
		if !ok || time.Now().After(exp) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.srv.URL+`/.well-known/oauth-protected-resource/mcp", scope="read"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
