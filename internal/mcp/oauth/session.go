package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// Handler is the MCP transport's OAuth handler for a server with stored credentials: the
// access token on every request, refreshed ahead of its expiry and once after a 401, each new
// token saved (refresh tokens rotate). When the refresh is refused the person is told to sign
// in again; nothing is stored.
type Handler struct {
	name, key string
	store     Store
	hc        *http.Client

	mu    sync.Mutex
	creds Credentials
	src   oauth2.TokenSource
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns the handler of server name (its Key) from the store; nil, nil when it
// has no credentials.
func NewHandler(store Store, name, key string, hc *http.Client) (*Handler, error) {
	c, err := store.Load(key)
	if err != nil || c == nil {
		return nil, err
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	h := &Handler{name: name, key: key, store: store, hc: hc, creds: *c}
	return h, nil
}

// TokenSource is the stored token, refreshed when it is about to expire.
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src == nil {
		h.src = oauth2.ReuseTokenSource(nil, &refresher{h: h})
	}
	return h.src, nil
}

// Authorize is called after a 401: refresh at once (the server may have revoked the access
// token early) and let the transport retry; a refused refresh is the person's to fix.
func (h *Handler) Authorize(ctx context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	tok, err := h.refreshLocked(ctx)
	if err != nil {
		return err
	}
	h.src = oauth2.ReuseTokenSource(tok, &refresher{h: h})
	return nil
}

// refresher hands out the stored token while it is valid and refreshes it otherwise.
type refresher struct{ h *Handler }

func (r *refresher) Token() (*oauth2.Token, error) {
	h := r.h
	h.mu.Lock()
	defer h.mu.Unlock()
	tok := h.token()
	if tok.Valid() {
		return tok, nil
	}
	return h.refreshLocked(context.Background())
}

func (h *Handler) token() *oauth2.Token {
	t := &oauth2.Token{AccessToken: h.creds.AccessToken, TokenType: "Bearer", RefreshToken: h.creds.RefreshToken}
	if h.creds.ExpiresAt > 0 {
		t.Expiry = time.UnixMilli(h.creds.ExpiresAt)
	}
	return t
}

// refreshLocked exchanges the refresh token and saves what comes back.
func (h *Handler) refreshLocked(ctx context.Context) (*oauth2.Token, error) {
	if h.creds.RefreshToken == "" {
		return nil, h.signInAgain(errors.New("the access token expired and there is no refresh token"))
	}
	endpoint := h.creds.TokenEndpoint
	if endpoint == "" {
		asm, err := auth.GetAuthServerMetadata(ctx, h.creds.Issuer, h.hc)
		if err != nil || asm == nil || asm.TokenEndpoint == "" {
			return nil, h.signInAgain(fmt.Errorf("find the token endpoint of %s: %v", h.creds.Issuer, err))
		}
		endpoint = asm.TokenEndpoint
	}
	cfg := &oauth2.Config{ClientID: h.creds.ClientID, ClientSecret: h.creds.ClientSecret, Scopes: h.creds.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: endpoint}}
	if h.creds.ClientSecret == "" {
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	old := h.token()
	old.Expiry = time.Unix(1, 0) // force the exchange
	tok, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.hc), old).Token()
	if err != nil {
		return nil, h.signInAgain(err)
	}
	h.creds.AccessToken, h.creds.TokenEndpoint = tok.AccessToken, endpoint
	if tok.RefreshToken != "" {
		h.creds.RefreshToken = tok.RefreshToken
	}
	h.creds.ExpiresAt = 0
	if !tok.Expiry.IsZero() {
		h.creds.ExpiresAt = tok.Expiry.UnixMilli()
	}
	if err := h.store.Save(h.key, h.creds); err != nil {
		return nil, fmt.Errorf("save the refreshed OAuth token of MCP server `%s`: %w", h.name, err)
	}
	return tok, nil
}

func (h *Handler) signInAgain(cause error) error {
	var re *oauth2.RetrieveError
	if errors.As(cause, &re) {
		// The token endpoint's own words, without echoing tokens.
		cause = fmt.Errorf("the authorization server answered %s %s", re.ErrorCode, re.ErrorDescription)
	}
	return fmt.Errorf("MCP server `%s`: OAuth credentials no longer work (%v); run `gocodex mcp login %s`", h.name, cause, h.name)
}
