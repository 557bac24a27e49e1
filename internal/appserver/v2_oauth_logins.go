package appserver

import (
	"context"
)

// The OAuth sign-ins gocodex does not do, answered as Codex 0.169 answers when they do not
// apply: account/gatewayOAuth/* (gocodex's providers authenticate with keys, never with a
// gateway's OAuth, so the read says none is required) and mcpServer/oauth/login (MCP servers
// authenticate with bearer_token_env_var or headers; an HTTP server's OAuth is refused).

type gatewayOAuthParams struct {
	ModelProvider *string `json:"modelProvider"`
	DeviceAuth    bool    `json:"deviceAuth"`
}

type gatewayOAuthReadResponse struct {
	Error              *string `json:"error"`
	ProviderID         string  `json:"providerId"`
	ProviderName       string  `json:"providerName"`
	Required           bool    `json:"required"`
	Status             *string `json:"status"`
	SupportsDeviceAuth bool    `json:"supportsDeviceAuth"`
}

type mcpOAuthLoginParams struct {
	Name        *string  `json:"name"`
	Scopes      []string `json:"scopes"`
	ThreadID    *string  `json:"threadId"`
	TimeoutSecs *int64   `json:"timeoutSecs"`
}

func registerOAuthLoginMethods(s *Server) {
	s.Handle("account/gatewayOAuth/read", TypedOptional(func(ctx context.Context, c *Conn, p gatewayOAuthParams) (gatewayOAuthReadResponse, error) {
		o := threadOverrides{ModelProvider: p.ModelProvider}
		cfg, err := s.loadThreadConfig(o)
		if err != nil {
			return gatewayOAuthReadResponse{}, err
		}
		return gatewayOAuthReadResponse{ProviderID: cfg.ModelProviderID, ProviderName: cfg.ModelProvider.Name}, nil
	}))
	s.Handle("account/gatewayOAuth/login", TypedOptional(func(ctx context.Context, c *Conn, p gatewayOAuthParams) (struct{}, error) {
		return struct{}{}, InvalidRequest("The selected provider does not use gateway OAuth")
	}))
	s.Handle("account/gatewayOAuth/cancel", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (struct{}, error) {
		// No gateway sign-in is ever running: nothing to cancel, as Codex answers then.
		return struct{}{}, nil
	}))
	s.Handle("mcpServer/oauth/login", Typed(func(ctx context.Context, c *Conn, p mcpOAuthLoginParams) (struct{}, error) {
		if p.Name == nil {
			return struct{}{}, InvalidRequest("Invalid request: missing field `name`")
		}
		cfg, err := s.loadThreadConfig(threadOverrides{})
		if err != nil {
			return struct{}{}, err
		}
		srv, ok := cfg.McpServers[*p.Name]
		if !ok {
			return struct{}{}, InvalidRequest("No MCP server named '" + *p.Name + "' found.")
		}
		if srv.URL == "" {
			return struct{}{}, InvalidRequest("OAuth login is only supported for streamable HTTP servers.")
		}
		return struct{}{}, internalError("failed to login to MCP server '" + *p.Name + "': gocodex does not support OAuth for MCP servers; give it a token with bearer_token_env_var or http_headers")
	}))
}
