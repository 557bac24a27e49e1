package appserver

import (
	"context"
)

// The OAuth sign-ins gocodex does not do, answered as Codex 0.169 answers when they do not
// apply: account/gatewayOAuth/* (gocodex's providers authenticate with keys, never with a
// gateway's OAuth, so the read says none is required) and mcpServer/oauth/login (MCP servers
// authenticate with bearer_token_env_var or headers; an HTTP server's OAuth is refused).

// AccountGatewayOAuthRead answers account/gatewayOAuth/read: no gateway OAuth is required.
func (a *api) AccountGatewayOAuthRead(ctx context.Context, c *Conn, p GatewayOAuthReadParams) (GatewayOAuthReadResponse, error) {
	cfg, err := a.s.loadThreadConfig(threadOverrides{ModelProvider: p.ModelProvider})
	if err != nil {
		return GatewayOAuthReadResponse{}, err
	}
	noDeviceAuth := false
	return GatewayOAuthReadResponse{ProviderID: cfg.ModelProviderID, ProviderName: cfg.ModelProvider.Name, SupportsDeviceAuth: &noDeviceAuth}, nil
}

// AccountGatewayOAuthLogin answers account/gatewayOAuth/login.
func (a *api) AccountGatewayOAuthLogin(ctx context.Context, c *Conn, _ GatewayOAuthLoginParams) (GatewayOAuthLoginResponse, error) {
	return GatewayOAuthLoginResponse{}, InvalidRequest("The selected provider does not use gateway OAuth")
}

// AccountGatewayOAuthCancel answers account/gatewayOAuth/cancel: no gateway sign-in is ever
// running, nothing to cancel, as Codex answers then.
func (a *api) AccountGatewayOAuthCancel(ctx context.Context, c *Conn) (GatewayOAuthCancelResponse, error) {
	return GatewayOAuthCancelResponse{}, nil
}

// McpServerOauthLogin answers mcpServer/oauth/login.
func (a *api) McpServerOauthLogin(ctx context.Context, c *Conn, p McpServerOauthLoginParams) (McpServerOauthLoginResponse, error) {
	cfg, err := a.s.loadThreadConfig(threadOverrides{})
	if err != nil {
		return McpServerOauthLoginResponse{}, err
	}
	srv, ok := cfg.McpServers[p.Name]
	if !ok {
		return McpServerOauthLoginResponse{}, InvalidRequest("No MCP server named '" + p.Name + "' found.")
	}
	if srv.URL == "" {
		return McpServerOauthLoginResponse{}, InvalidRequest("OAuth login is only supported for streamable HTTP servers.")
	}
	return McpServerOauthLoginResponse{}, internalError("failed to login to MCP server '" + p.Name + "': gocodex does not support OAuth for MCP servers; give it a token with bearer_token_env_var or http_headers")
}
