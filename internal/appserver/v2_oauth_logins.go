package appserver

import (
	"context"
)

// The gateway OAuth sign-ins gocodex does not do, answered as Codex 0.169 answers when they
// do not apply: account/gatewayOAuth/* (gocodex's providers authenticate with keys, never
// with a gateway's OAuth, so the read says none is required). An MCP server's OAuth sign-in
// (mcpServer/oauth/login) is v2_mcp_oauth.go.

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
