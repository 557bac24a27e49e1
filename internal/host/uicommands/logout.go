package uicommands

import (
	"context"
	"fmt"
	"os"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
)

// Logout removes the stored credentials (auth.json or the keyring entry) after revoking a
// ChatGPT sign-in, as `codex logout` does; it reports whether there were any. A revocation
// that fails is returned as a warning: the local credentials are removed anyway.
func Logout(ctx context.Context, cfg *config.Config, originator string) (removed bool, warning string, err error) {
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return false, "", err
	}
	store := auth.NewStore(cfg.CodexHome, mode, nil)
	if f, err := store.Load(); err == nil && f.Mode == auth.ModeChatGPT {
		ep := auth.EndpointsFromEnv(os.Getenv, originator)
		if ep.HTTP, err = auth.HTTPClient(os.Getenv); err != nil {
			return false, "", err
		}
		if err := auth.Revoke(ctx, ep, f.Tokens); err != nil {
			warning = fmt.Sprintf("%v; removing the local credentials anyway", err)
		}
	}
	removed, err = store.Delete()
	return removed, warning, err
}
