package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// Methods beyond the list that editors call at start-up. This engine has no
// plugins, apps or MCP status to report yet, so they answer empty lists rather than "method
// not found", which clients treat as fatal (issue 18 replaces them).

func (r *threads) registerExtras(s *Server) {
	emptyPage := func(ctx context.Context, c *Conn, _ struct{}) (map[string]any, error) {
		return map[string]any{"data": []any{}, "nextCursor": nil}, nil
	}
	for _, m := range []string{"mcpServerStatus/list"} {
		s.Handle(m, TypedOptional(emptyPage))
	}
	s.Handle("account/rateLimits/read", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (map[string]any, error) {
		// As Codex: rate limits are a ChatGPT account's; other sign-ins have none to read.
		if _, ok := accountBackend(s); !ok {
			return nil, errNoChatGPTAccount("to read rate limits")
		}
		r.mu.Lock()
		limits := r.limits
		r.mu.Unlock()
		return map[string]any{"rateLimits": wire.V2RateLimitsOf(limits)}, nil
	}))
}

// ConfigRequirementsRead answers configRequirements/read: gocodex reads no requirements
// (requirements.toml, MDM), and has one speed per service tier, not speed modes apart from it.
func (a *api) ConfigRequirementsRead(ctx context.Context, c *Conn) (ConfigRequirementsReadResponse, error) {
	independent := false
	return ConfigRequirementsReadResponse{SupportsIndependentSpeedModes: &independent}, nil
}
