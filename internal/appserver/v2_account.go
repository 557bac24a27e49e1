package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Accounts, as Codex 0.169's app-server answers them: account/read, account/login/start
// (apiKey, chatgpt through the browser, chatgptDeviceCode), account/login/cancel and
// account/logout, with account/login/completed and account/updated notifications. The
// credentials are the ones `gocodex login` writes (auth.json or the keyring).

type loginParams struct {
	Type   string  `json:"type"`
	APIKey *string `json:"apiKey"`
	externalTokensParams
}

type loginResponse struct {
	Type            string `json:"type"`
	LoginID         string `json:"loginId,omitempty"`
	AuthURL         string `json:"authUrl,omitempty"`
	VerificationURL string `json:"verificationUrl,omitempty"`
	UserCode        string `json:"userCode,omitempty"`
}

// accountInfo is the v2 Account union (apiKey and chatgpt).
type accountInfo struct {
	Type          string  `json:"type"`
	Email         *string `json:"email,omitempty"`
	PlanType      *string `json:"planType,omitempty"`
	WorkspaceName *string `json:"workspaceName,omitempty"`
	// chatgpt always carries email, planType and workspaceName, null or not.
	chatgpt bool
}

func (a accountInfo) MarshalJSON() ([]byte, error) {
	if !a.chatgpt {
		return json.Marshal(struct {
			Type string `json:"type"`
		}{a.Type})
	}
	return json.Marshal(struct {
		Type          string  `json:"type"`
		Email         *string `json:"email"`
		PlanType      *string `json:"planType"`
		WorkspaceName *string `json:"workspaceName"`
	}{a.Type, a.Email, a.PlanType, a.WorkspaceName})
}

type loginCompleted struct {
	LoginID              *string `json:"loginId"`
	Success              bool    `json:"success"`
	Error                *string `json:"error"`
	OnboardingEntrypoint *string `json:"onboardingEntrypoint"`
}

// logins are the sign-ins in progress, by loginId.
type logins struct {
	mu     sync.Mutex
	active map[string]func()
}

// notifyAccount sends account/updated; its reason (Codex 0.171) is null, as 0.171 sends it
// for a sign-in or sign-out (workspaceRoutingReady is ChatGPT workspace routing's).
func notifyAccount(c *Conn, mode string, plan *string) {
	u := AccountUpdatedNotification{PlanType: (*PlanType)(plan)}
	if mode != "" {
		am := AuthMode(mode)
		u.AuthMode = &am
	}
	_ = c.Notify(c.Context(), "account/updated", u)
}

func accountStore(s *Server) *auth.Store {
	mode := auth.StoreFile
	if cfg := s.opts.Config; cfg != nil {
		if m, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore); err == nil {
			mode = m
		}
	}
	return auth.NewStore(codexHome(s), mode, nil)
}

func accountEndpoints(s *Server, c *Conn) auth.Endpoints {
	ep := auth.EndpointsFromEnv(s.opts.Getenv, c.Originator())
	ep.HTTP, _ = auth.HTTPClient(s.opts.Getenv)
	return ep
}

// accountRead reports the stored sign-in when the provider takes OpenAI auth: the API key
// (also one in the environment), or the ChatGPT account from the id token.
func accountRead(s *Server) (GetAccountResponse, auth.Mode, *string) {
	cfg := s.opts.Config
	if cfg == nil || !cfg.ModelProvider.RequiresOpenAIAuth {
		return GetAccountResponse{}, "", nil
	}
	out := GetAccountResponse{RequiresOpenaiAuth: true}
	if ext := s.externalAuth(); ext != nil {
		ext.mu.Lock()
		plan := ext.plan
		ext.mu.Unlock()
		out.Account = &accountInfo{Type: "chatgpt", chatgpt: true, PlanType: plan}
		if plan == nil {
			unknown := "unknown"
			out.Account.PlanType = &unknown
		}
		return out, "chatgptAuthTokens", out.Account.PlanType
	}
	f, err := accountStore(s).Load()
	if err != nil {
		if s.opts.Getenv("CODEX_API_KEY") != "" || s.opts.Getenv("OPENAI_API_KEY") != "" {
			out.Account = &accountInfo{Type: "apiKey"}
			return out, auth.ModeAPIKey, nil
		}
		return out, "", nil
	}
	if f.Mode == auth.ModeAPIKey {
		out.Account = &accountInfo{Type: "apiKey"}
		return out, f.Mode, nil
	}
	info := &accountInfo{Type: "chatgpt", chatgpt: true}
	var plan *string
	if f.Tokens != nil {
		if cl, err := auth.IDClaims(f.Tokens.IDToken); err == nil {
			info.Email, plan = strPtr(cl.Email), strPtr(cl.PlanType)
			out.UserID = strPtr(cl.UserID)
		}
	}
	if plan == nil {
		unknown := "unknown"
		plan = &unknown
	}
	info.PlanType = plan
	out.Account = info
	return out, f.Mode, plan
}

func forceRefresh(ctx context.Context, s *Server) error {
	store := accountStore(s)
	f, err := store.Load()
	if err != nil || f.Mode != auth.ModeChatGPT {
		return nil // nothing to refresh
	}
	ep := auth.EndpointsFromEnv(s.opts.Getenv, "codex_cli_rs")
	ep.HTTP, _ = auth.HTTPClient(s.opts.Getenv)
	_, err = auth.Refresh(ctx, store, ep, auth.RefreshForced, "", time.Now())
	return err
}

// startBrowser begins a ChatGPT sign-in whose callback server runs until it completes, is
// cancelled or the connection ends; the result arrives as account/login/completed.
func (ls *logins) startBrowser(ctx context.Context, s *Server, c *Conn) (loginResponse, error) {
	if cfg := s.opts.Config; cfg != nil && cfg.ForcedLoginMethod == "api" {
		return loginResponse{}, InvalidRequest("ChatGPT login is disabled by forced_login_method = \"api\"")
	}
	o := loginOptions(s, c)
	sess, err := auth.StartBrowserLogin(c.Context(), accountStore(s), o)
	if err != nil {
		return loginResponse{}, internalError(err.Error())
	}
	id := uuid.NewString()
	ls.mu.Lock()
	ls.active[id] = sess.Cancel
	ls.mu.Unlock()
	c.Go(func() {
		defer sess.Cancel()
		f, err := sess.Wait(c.Context())
		ls.mu.Lock()
		delete(ls.active, id)
		ls.mu.Unlock()
		if c.Context().Err() != nil {
			return // the connection is gone
		}
		ls.completed(c, id, f, err)
	})
	return loginResponse{Type: "chatgpt", LoginID: id, AuthURL: sess.AuthURL}, nil
}

// loginOptions are an app-server sign-in's options: the client's originator, and for tests the
// issuer and callback port from GOCODEX_LOGIN_ISSUER and GOCODEX_LOGIN_PORT (Codex's
// app-server has no issuer override).
func loginOptions(s *Server, c *Conn) auth.LoginOptions {
	o := auth.LoginOptions{Originator: c.Originator(), Issuer: s.opts.Getenv("GOCODEX_LOGIN_ISSUER")}
	if v := s.opts.Getenv("GOCODEX_LOGIN_PORT"); v != "" {
		o.Port, _ = strconv.Atoi(v)
	}
	o.HTTP, _ = auth.HTTPClient(s.opts.Getenv)
	return o
}

// startDevice begins a device-code sign-in: the code is the answer, the result arrives as
// account/login/completed once the person entered it (or the sign-in was cancelled).
func (ls *logins) startDevice(ctx context.Context, s *Server, c *Conn) (loginResponse, error) {
	if cfg := s.opts.Config; cfg != nil && cfg.ForcedLoginMethod == "api" {
		return loginResponse{}, InvalidRequest("ChatGPT login is disabled by forced_login_method = \"api\"")
	}
	d, err := auth.StartDeviceLogin(ctx, loginOptions(s, c))
	if err != nil {
		return loginResponse{}, internalError(err.Error())
	}
	id := uuid.NewString()
	wctx, cancel := context.WithCancel(c.Context())
	ls.mu.Lock()
	ls.active[id] = cancel
	ls.mu.Unlock()
	store := accountStore(s)
	c.Go(func() {
		defer cancel()
		f, err := d.Wait(wctx, store)
		ls.mu.Lock()
		delete(ls.active, id)
		ls.mu.Unlock()
		if c.Context().Err() != nil {
			return
		}
		ls.completed(c, id, f, err)
	})
	return loginResponse{Type: "chatgptDeviceCode", LoginID: id, VerificationURL: d.VerificationURL, UserCode: d.UserCode}, nil
}

// completed sends a sign-in's outcome: account/login/completed, then account/updated.
func (ls *logins) completed(c *Conn, id string, f *auth.File, err error) {
	done := loginCompleted{LoginID: &id, Success: err == nil}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.Canceled) || errors.Is(err, auth.ErrLoginCancelled) {
			msg = "Login cancelled"
		}
		done.Error = &msg
	}
	_ = c.Notify(c.Context(), "account/login/completed", done)
	if f != nil {
		var plan *string
		if f.Tokens != nil {
			if cl, err := auth.IDClaims(f.Tokens.IDToken); err == nil {
				plan = strPtr(cl.PlanType)
			}
		}
		notifyAccount(c, string(f.Mode), plan)
	}
}

// AccountRead answers account/read.
func (a *api) AccountRead(ctx context.Context, c *Conn, p GetAccountParams) (GetAccountResponse, error) {
	s := a.s
	if p.RefreshToken != nil && *p.RefreshToken {
		if err := forceRefresh(ctx, s); err != nil {
			return GetAccountResponse{}, internalError(err.Error())
		}
	}
	out, mode, plan := accountRead(s)
	if mode == auth.ModeChatGPT || mode == "chatgptAuthTokens" {
		jsonrpc.AfterReply(ctx, func() { notifyAccount(c, string(mode), plan) })
	}
	return out, nil
}

// AccountLoginStart answers account/login/start.
func (a *api) AccountLoginStart(ctx context.Context, c *Conn, p loginParams) (loginResponse, error) {
	ls := a.logins
	s := a.s
	switch p.Type {
	case "apiKey":
		if p.APIKey == nil {
			return loginResponse{}, InvalidRequest("Invalid request: missing field `apiKey`")
		}
		key := *p.APIKey
		if err := accountStore(s).Save(&auth.File{Mode: auth.ModeAPIKey, APIKey: &key}); err != nil {
			return loginResponse{}, internalError(err.Error())
		}
		jsonrpc.AfterReply(ctx, func() {
			_ = c.Notify(c.Context(), "account/login/completed", loginCompleted{Success: true})
			notifyAccount(c, string(auth.ModeAPIKey), nil)
		})
		return loginResponse{Type: "apiKey"}, nil
	case "chatgpt":
		return ls.startBrowser(ctx, s, c)
	case "chatgptDeviceCode":
		return ls.startDevice(ctx, s, c)
	case "chatgptAuthTokens":
		if p.AccessToken == nil || p.ChatgptAccountID == nil {
			return loginResponse{}, InvalidRequest("Invalid request: chatgptAuthTokens needs `accessToken` and `chatgptAccountId`")
		}
		s.setExternalAuth(&externalAuth{conn: c, access: *p.AccessToken, accountID: *p.ChatgptAccountID, plan: p.ChatgptPlanType})
		jsonrpc.AfterReply(ctx, func() {
			_ = c.Notify(c.Context(), "account/login/completed", loginCompleted{Success: true})
			notifyAccount(c, "chatgptAuthTokens", p.ChatgptPlanType)
		})
		return loginResponse{Type: "chatgptAuthTokens"}, nil
	case "amazonBedrock", "amazonBedrockAccessKeys":
		return loginResponse{}, InvalidRequest("login type `" + p.Type + "` is not supported by gocodex")
	}
	return loginResponse{}, InvalidRequest("Invalid request: unknown variant `" + p.Type + "`, expected one of `apiKey`, `chatgpt`, `chatgptDeviceCode`, `chatgptAuthTokens`, `amazonBedrock`, `amazonBedrockAccessKeys`")
}

// AccountLoginCancel answers account/login/cancel.
func (a *api) AccountLoginCancel(ctx context.Context, c *Conn, p CancelLoginAccountParams) (CancelLoginAccountResponse, error) {
	ls := a.logins
	// As Codex: login ids are UUIDs, anything else is refused before the lookup.
	if _, err := uuid.Parse(p.LoginID); err != nil {
		return CancelLoginAccountResponse{}, InvalidRequest("invalid login id: " + p.LoginID)
	}
	ls.mu.Lock()
	cancel, ok := ls.active[p.LoginID]
	delete(ls.active, p.LoginID)
	ls.mu.Unlock()
	if !ok {
		return CancelLoginAccountResponse{Status: "notFound"}, nil
	}
	cancel()
	return CancelLoginAccountResponse{Status: "canceled"}, nil
}

// AccountLogout answers account/logout.
func (a *api) AccountLogout(ctx context.Context, c *Conn) (LogoutAccountResponse, error) {
	s := a.s
	s.setExternalAuth(nil)
	store := accountStore(s)
	if f, err := store.Load(); err == nil && f.Mode == auth.ModeChatGPT {
		if err := auth.Revoke(ctx, accountEndpoints(s, c), f.Tokens); err != nil {
			s.opts.Logger.Warn("revoke on logout", "err", err)
		}
	}
	if _, err := store.Delete(); err != nil {
		return LogoutAccountResponse{}, internalError(err.Error())
	}
	jsonrpc.AfterReply(ctx, func() { notifyAccount(c, "", nil) })
	return LogoutAccountResponse{}, nil
}
