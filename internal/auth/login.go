package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// DefaultLoginPort is where Codex's browser sign-in listens for the callback.
const DefaultLoginPort = 1455

// loginScopes are the scopes Codex's browser sign-in asks for.
const loginScopes = "openid profile email offline_access api.connectors.read api.connectors.invoke"

// LoginOptions configure a sign-in.
type LoginOptions struct {
	// Issuer is the OAuth issuer; empty means DefaultIssuer (--experimental_issuer).
	Issuer string
	// ClientID empty means ClientID (--experimental_client-id).
	ClientID string
	// Originator is sent as the `originator` parameter and header.
	Originator string
	// Port is the callback port of the browser flow; 0 means DefaultLoginPort.
	Port int
	// HTTP is the client for the issuer; nil means one with a 30 s timeout.
	HTTP *http.Client
	// OpenBrowser opens the sign-in page; nil or failing, the URL printed is the way in.
	OpenBrowser func(url string) error
	// Out receives what the person must see (the URL, the device code).
	Out io.Writer
	// Now stamps last_refresh; nil means time.Now.
	Now func() time.Time
	// PollLimit bounds the device flow; 0 means 15 minutes, as the code's lifetime.
	PollLimit time.Duration
}

func (o *LoginOptions) defaults() {
	if o.Issuer == "" {
		o.Issuer = DefaultIssuer
	}
	o.Issuer = strings.TrimRight(o.Issuer, "/")
	if o.ClientID == "" {
		o.ClientID = ClientID
	}
	if o.Originator == "" {
		o.Originator = "codex_cli_rs"
	}
	if o.Port == 0 {
		o.Port = DefaultLoginPort
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollLimit == 0 {
		o.PollLimit = 15 * time.Minute
	}
}

// pkce is a PKCE verifier and its S256 challenge (RFC 7636, through golang.org/x/oauth2).
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	v := oauth2.GenerateVerifier()
	return pkce{verifier: v, challenge: oauth2.S256ChallengeFromVerifier(v)}
}

func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// exchangeCode trades an authorization code for tokens: golang.org/x/oauth2's exchange, the
// client id in the form as Codex sends it (a public client, no secret).
func exchangeCode(ctx context.Context, o LoginOptions, code, redirectURI, verifier string) (*tokenResponse, error) {
	cfg := oauth2.Config{ClientID: o.ClientID, RedirectURL: redirectURI,
		Endpoint: oauth2.Endpoint{TokenURL: o.Issuer + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, o.HTTP), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("token exchange failed: %w", issuerError(err))
	}
	r := tokenResponse{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken}
	r.IDToken, _ = tok.Extra("id_token").(string)
	if r.IDToken == "" || r.AccessToken == "" {
		return nil, errors.New("token exchange failed: the issuer's answer has no id_token and access_token")
	}
	return &r, nil
}

// issuerError words an exchange's failure as postForm does: the status and the error code,
// never the body (it may echo a code or token); a transport error without its URL.
func issuerError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		msg := fmt.Sprintf("the issuer answered %d %s", re.Response.StatusCode, http.StatusText(re.Response.StatusCode))
		if re.ErrorCode != "" {
			msg += " (" + re.ErrorCode + ")"
		}
		return errors.New(msg)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return redactURLError(ue)
	}
	if strings.Contains(err.Error(), "missing access_token") || strings.Contains(err.Error(), "cannot parse json") {
		return errors.New("the issuer's answer is not JSON")
	}
	return err
}

// exchangeAPIKey trades the id token for an API key (browser sign-in only, as in Codex).
func exchangeAPIKey(ctx context.Context, o LoginOptions, idToken string) (string, error) {
	form := url.Values{
		"grant_type":         {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"client_id":          {o.ClientID},
		"requested_token":    {"openai-api-key"},
		"subject_token":      {idToken},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:id_token"},
	}
	var r struct {
		AccessToken string `json:"access_token"`
	}
	if err := postForm(ctx, o, form, &r); err != nil {
		return "", err
	}
	return r.AccessToken, nil
}

func postForm(ctx context.Context, o LoginOptions, form url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Issuer+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := o.HTTP.Do(req)
	if err != nil {
		return redactURLError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("the issuer answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if code := errorCode(data); code != "" {
			msg += " (" + code + ")"
		}
		return errors.New(msg)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return errors.New("the issuer's answer is not JSON")
	}
	return nil
}

// storeTokens writes the ChatGPT credentials as Codex does after a sign-in.
func storeTokens(s *Store, o LoginOptions, t *tokenResponse, apiKey *string) (*File, error) {
	claims, err := IDClaims(t.IDToken)
	if err != nil {
		return nil, fmt.Errorf("the issuer's id_token: %w", err)
	}
	tok := &Tokens{IDToken: t.IDToken, AccessToken: t.AccessToken, RefreshToken: t.RefreshToken,
		Provenance: &Provenance{Issuer: o.Issuer, ClientID: o.ClientID}}
	if claims.AccountID != "" {
		id := claims.AccountID
		tok.AccountID = &id
	}
	now := o.Now().UTC()
	f := &File{Mode: ModeChatGPT, APIKey: apiKey, Tokens: tok, LastRefresh: &now}
	return f, s.Save(f)
}
