package appserver

import (
	"context"

	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// Methods editors call at start-up that gocodex answers with what it has: no requirements,
// and rate limits only for a ChatGPT account.

// ConfigRequirementsRead answers configRequirements/read: gocodex reads no requirements
// (requirements.toml, MDM), and has one speed per service tier, not speed modes apart from it.
func (a *api) ConfigRequirementsRead(ctx context.Context, c *Conn) (ConfigRequirementsReadResponse, error) {
	independent := false
	return ConfigRequirementsReadResponse{SupportsIndependentSpeedModes: &independent}, nil
}

// AccountRateLimitsRead answers account/rateLimits/read: as Codex, rate limits are a ChatGPT
// account's; other sign-ins have none to read.
func (a *api) AccountRateLimitsRead(ctx context.Context, c *Conn, _ GetAccountRateLimitsParams) (GetAccountRateLimitsResponse, error) {
	if _, ok := accountBackend(a.s); !ok {
		return GetAccountRateLimitsResponse{}, errNoChatGPTAccount("to read rate limits")
	}
	a.r.mu.Lock()
	limits := a.r.limits
	a.r.mu.Unlock()
	return GetAccountRateLimitsResponse{RateLimits: wire.V2RateLimitsOf(limits)}, nil
}
