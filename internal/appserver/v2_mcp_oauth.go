package appserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/host/uicommands"
)

// mcpServer/oauth/login signs in to an MCP server behind OAuth as Codex 0.171 does: the
// answer is the authorization URL (the client opens it) and the attempt's loginId; the flow
// (discovery from the server's 401, registration, the code with PKCE through a local
// callback) goes on in the background, the tokens are stored where `mcp login` stores them
// (internal/mcp/oauth), and mcpServer/oauthLogin/completed tells how it ended.
// TestAppServerMcpOAuthLogin runs it against the scripted OAuth server (and Codex 0.171).

// McpServerOauthLogin answers mcpServer/oauth/login.
func (a *api) McpServerOauthLogin(ctx context.Context, c *Conn, p McpServerOauthLoginParams) (McpServerOauthLoginResponse, error) {
	cfg, err := a.s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return McpServerOauthLoginResponse{}, err
	}
	srv, ok := cfg.McpServers[p.Name]
	if p.EnvironmentID != nil { // gocodex registers servers in the local environment only
		return McpServerOauthLoginResponse{}, InvalidRequest("No MCP server named '" + p.Name + " (environment " + *p.EnvironmentID + ")' found.")
	}
	if !ok {
		return McpServerOauthLoginResponse{}, InvalidRequest("No MCP server named '" + p.Name + "' found.")
	}
	if srv.URL == "" {
		return McpServerOauthLoginResponse{}, InvalidRequest("OAuth login is only supported for streamable HTTP servers.")
	}
	if p.ClientRegistration != nil && *p.ClientRegistration != "auto" && *p.ClientRegistration != "dcr" {
		return McpServerOauthLoginResponse{}, InvalidRequest("gocodex does not support OAuth client registration `" + string(*p.ClientRegistration) + "`: use auto or dcr")
	}
	// A store that cannot take the tokens is said now, not after the person has signed in.
	if _, err := uicommands.McpOAuthStore(cfg); err != nil {
		return McpServerOauthLoginResponse{}, InvalidRequest(err.Error())
	}
	timeout := time.Duration(0) // Login's default
	if p.TimeoutSecs != nil && *p.TimeoutSecs > 0 {
		timeout = time.Duration(*p.TimeoutSecs) * time.Second
	}
	loginID := newSubmissionID()
	// The first of the authorization URL and the flow's end answers the request; once the
	// URL is out, the end is the notification's.
	first := make(chan loginStep, 1)
	var once sync.Once
	report := func(st loginStep) (answered bool) {
		once.Do(func() { first <- st; answered = true })
		return answered
	}
	go func() {
		err := uicommands.McpLogin(c.Context(), cfg, p.Name, uicommands.McpLoginOptions{
			Scopes: p.Scopes, Out: io.Discard, Timeout: timeout,
			// The client opens the URL: the server only hands it over.
			OpenBrowser: func(u string) error { report(loginStep{url: u}); return nil },
		})
		if err == nil && report(loginStep{err: errNoAuthorizationURL}) {
			return
		}
		if err != nil && report(loginStep{err: err}) {
			return
		}
		done := McpServerOauthLoginCompletedNotification{Name: p.Name, ThreadID: p.ThreadID, LoginID: &loginID, Success: err == nil}
		if err != nil {
			msg := err.Error()
			done.Error = &msg
		}
		_ = c.Notify(c.Context(), "mcpServer/oauthLogin/completed", done)
	}()
	select {
	case st := <-first:
		if st.err != nil {
			return McpServerOauthLoginResponse{}, internalError("failed to login to MCP server '" + p.Name + "': " + st.err.Error())
		}
		return McpServerOauthLoginResponse{AuthorizationURL: st.url, LoginID: &loginID}, nil
	case <-ctx.Done():
		return McpServerOauthLoginResponse{}, ctx.Err()
	}
}

// loginStep is how an MCP OAuth sign-in first answers: its authorization URL, or its error.
type loginStep struct {
	url string
	err error
}

var errNoAuthorizationURL = errors.New("the sign-in ended without an authorization URL")
