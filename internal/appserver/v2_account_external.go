package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// externalAuth is the chatgptAuthTokens sign-in: the client hands the server ChatGPT tokens it
// manages itself (nothing is written to disk), and is asked for fresh ones with the
// account/chatgptAuthTokens/refresh server request when the backend answers 401.
type externalAuth struct {
	mu        sync.Mutex
	conn      *Conn
	access    string
	accountID string
	plan      *string
	refreshed bool // a refresh was asked for since the last success
}

type externalTokensParams struct {
	AccessToken      *string `json:"accessToken"`
	ChatgptAccountID *string `json:"chatgptAccountId"`
	ChatgptPlanType  *string `json:"chatgptPlanType"`
}

type tokensRefreshParams struct {
	Reason            string  `json:"reason"`
	PreviousAccountID *string `json:"previousAccountId"`
}

type tokensRefreshResponse struct {
	AccessToken      string  `json:"accessToken"`
	ChatgptAccountID string  `json:"chatgptAccountId"`
	ChatgptPlanType  *string `json:"chatgptPlanType"`
}

// externalRefreshTimeout bounds how long a turn waits for the client's fresh tokens.
const externalRefreshTimeout = 10 * time.Second

func (e *externalAuth) Authorize(ctx context.Context, h http.Header) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	h.Set("Authorization", "Bearer "+e.access)
	if e.accountID != "" {
		h.Set("ChatGPT-Account-Id", e.accountID)
	}
	return nil
}

// Unauthorized asks the client that signed in for new tokens, once per run of 401s.
func (e *externalAuth) Unauthorized(ctx context.Context) (bool, error) {
	e.mu.Lock()
	if e.refreshed {
		e.mu.Unlock()
		return false, nil
	}
	e.refreshed = true
	c, prev := e.conn, e.accountID
	e.mu.Unlock()
	if c == nil || c.Context().Err() != nil {
		return false, errors.New("the client that provided the ChatGPT tokens is gone; sign in again")
	}
	rctx, cancel := context.WithTimeout(ctx, externalRefreshTimeout)
	defer cancel()
	raw, err := c.Request(rctx, "account/chatgptAuthTokens/refresh", tokensRefreshParams{Reason: "unauthorized", PreviousAccountID: strPtr(prev)})
	if err != nil {
		return false, errors.New("account/chatgptAuthTokens/refresh failed: " + err.Error())
	}
	var r tokensRefreshResponse
	if err := json.Unmarshal(raw, &r); err != nil || r.AccessToken == "" {
		return false, errors.New("account/chatgptAuthTokens/refresh answered without an accessToken")
	}
	e.mu.Lock()
	e.access, e.accountID, e.plan = r.AccessToken, r.ChatgptAccountID, r.ChatgptPlanType
	e.mu.Unlock()
	return true, nil
}

func (e *externalAuth) Succeeded() {
	e.mu.Lock()
	e.refreshed = false
	e.mu.Unlock()
}
