package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginOptions say which server to sign in to and how.
type LoginOptions struct {
	Name    string
	URL     string
	Headers map[string]string // the server's http_headers (they are part of the Key)
	// Scopes override the ones the server's challenge or metadata asks for.
	Scopes []string
	// Resource is the server's oauth_resource: named in the authorization request besides
	// the resource its metadata gives, as Codex 0.171 does.
	Resource string
	// ClientID (and ClientSecret) name a client registered beforehand; without one the client
	// registers itself (RFC 7591).
	ClientID, ClientSecret string
	// CallbackPort is the local callback's port (mcp_oauth_callback_port); 0 picks a free one.
	CallbackPort int
	HTTPClient   *http.Client
	// Out is where the authorization URL is printed for the person.
	Out io.Writer
	// OpenBrowser opens the URL (with $BROWSER, or the system's opener); an error only means
	// the person opens the printed URL themselves.
	OpenBrowser func(url string) error
	// Timeout bounds the wait for the person (default five minutes).
	Timeout time.Duration
}

// ErrNoOAuth is a server that did not ask for OAuth (no 401 with a Bearer challenge).
var ErrNoOAuth = errors.New("the server did not ask for OAuth")

// Login runs the authorization code flow with PKCE against the server's authorization server
// and returns the credentials to store. Nothing is stored here.
func Login(ctx context.Context, o LoginOptions) (*Credentials, error) {
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, resp, err := Probe(ctx, hc, o.URL, o.Headers)
	if err != nil {
		return nil, err
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	issuer, err := discoverIssuer(ctx, hc, o.URL, challenges)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}

	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", o.CallbackPort))
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("start the local OAuth callback: %w", err)
	}
	cb := newCallback(ln)
	defer cb.close()

	var cfg *oauth2.Config
	var token *oauth2.Token
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         cb.url,
		RequestRefreshToken: true,
		Client:              hc,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			authURL := args.URL
			if o.Resource != "" {
				authURL += "&resource=" + url.QueryEscape(o.Resource)
			}
			fmt.Fprintf(o.Out, "Authorize `%s` by opening this URL in your browser:\n%s\n\n", o.Name, authURL)
			if o.OpenBrowser != nil {
				_ = o.OpenBrowser(authURL)
			}
			return cb.wait(ctx)
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			cfg, token = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if len(o.Scopes) > 0 {
		hcfg.ScopeFilter = func([]string) []string { return o.Scopes }
	}
	if o.ClientID != "" {
		cc := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		hcfg.PreregisteredClient = cc
	} else {
		hcfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "gocodex",
			RedirectURIs:            []string{cb.url},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	h, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return nil, fmt.Errorf("OAuth sign-in to MCP server `%s` failed: %w", o.Name, err)
	}
	if cfg == nil || token == nil || token.AccessToken == "" {
		return nil, fmt.Errorf("OAuth sign-in to MCP server `%s` failed: the authorization server issued no access token", o.Name)
	}
	return credentialsOf(o, issuer, cfg, token), nil
}

// Probe sends the MCP initialize request without credentials and expects the 401 that starts
// the flow: the request and that answer (its body for the caller to close), ErrNoOAuth for
// another answer, or the error of a server that cannot be reached.
func Probe(ctx context.Context, hc *http.Client, url string, headers map[string]string) (*http.Request, *http.Response, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gocodex","version":"0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("reach the MCP server: %w", err)
	}
	if resp.StatusCode != http.StatusUnauthorized {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("%w (it answered %s)", ErrNoOAuth, resp.Status)
	}
	return req, resp, nil
}

// discoverIssuer finds the authorization server the way the SDK will: the challenge's
// resource_metadata, else the well-known addresses of the resource.
func discoverIssuer(ctx context.Context, hc *http.Client, resource string, challenges []oauthex.Challenge) (string, error) {
	var urls []string
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			urls = append(urls, u)
		}
	}
	urls = append(urls, wellKnownResourceMetadata(resource)...)
	var lastErr error
	for _, u := range urls {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, u, resource, hc)
		if err != nil {
			lastErr = err
			continue
		}
		if prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm.AuthorizationServers[0], nil
		}
	}
	if lastErr == nil {
		lastErr = errors.New("no authorization server named")
	}
	return "", fmt.Errorf("discover the server's OAuth metadata: %w", lastErr)
}

// wellKnownResourceMetadata are RFC 9728's addresses for a resource: with its path, then at
// the root.
func wellKnownResourceMetadata(resource string) []string {
	scheme, rest, ok := strings.Cut(resource, "://")
	if !ok {
		return nil
	}
	host, path, _ := strings.Cut(rest, "/")
	base := scheme + "://" + host + "/.well-known/oauth-protected-resource"
	if path == "" {
		return []string{base}
	}
	return []string{base + "/" + strings.TrimSuffix(path, "/"), base}
}

func credentialsOf(o LoginOptions, issuer string, cfg *oauth2.Config, t *oauth2.Token) *Credentials {
	c := &Credentials{ServerName: o.Name, ServerURL: o.URL, Issuer: issuer, ClientID: cfg.ClientID,
		ClientSecret: cfg.ClientSecret, AccessToken: t.AccessToken, RefreshToken: t.RefreshToken,
		Scopes: cfg.Scopes, TokenEndpoint: cfg.Endpoint.TokenURL}
	if !t.Expiry.IsZero() {
		c.ExpiresAt = t.Expiry.UnixMilli()
	}
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		c.Scopes = strings.Fields(s)
	}
	return c
}

// callback is the local redirect target: http://127.0.0.1:PORT/callback/ID, one answer.
type callback struct {
	url    string
	srv    *http.Server
	result chan *auth.AuthorizationResult
	failed chan error
}

func newCallback(ln net.Listener) *callback {
	id := strings.TrimRight(rand.Text(), "=")[:12]
	c := &callback{url: fmt.Sprintf("http://%s/callback/%s", ln.Addr(), id),
		result: make(chan *auth.AuthorizationResult, 1), failed: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback/"+id, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "Sign-in failed: "+e, http.StatusBadRequest)
			select {
			case c.failed <- fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description")):
			default:
			}
			return
		}
		if q.Get("code") == "" {
			http.Error(w, "no authorization code", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "Signed in. You can close this window and return to gocodex.\n")
		select {
		case c.result <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
	})
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	return c
}

func (c *callback) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case r := <-c.result:
		return r, nil
	case err := <-c.failed:
		return nil, err
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer from the browser: %w", ctx.Err())
	}
}

func (c *callback) close() { _ = c.srv.Close() }
