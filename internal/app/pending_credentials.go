package app

import (
	"context"
	"errors"
	"net/http"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// notSignedIn says err is only the absence of OpenAI credentials (no key in the environment,
// no stored sign-in) for a provider that takes them, which Options.DeferCredentials lets a
// thread start without. A provider's own env_key stays required.
func notSignedIn(cfg *config.Config, err error) bool {
	var missing *model.EnvVarError
	p := cfg.ModelProvider
	return errors.As(err, &missing) && p.RequiresOpenAIAuth && p.EnvKey == "" && p.ExperimentalBearerToken == ""
}

// pendingCredentials are the credentials of a thread started before any sign-in: an
// authorizer that looks for them again at each request (a sign-in made since counts) and
// sends the request without any while there are none, as Codex 0.171 does; the provider's
// 401 then reaches the person as the turn's error.
func (a *App) pendingCredentials(cfg *config.Config, originator string, httpClient *http.Client) credentials {
	return credentials{provider: cfg.ModelProvider, authorizer: &pendingAuthorizer{
		resolve: func() (credentials, error) { return a.credentialsFor(cfg, originator, httpClient) },
	}}
}

type pendingAuthorizer struct {
	resolve func() (credentials, error)
}

func (p *pendingAuthorizer) Authorize(ctx context.Context, h http.Header) error {
	cred, err := p.resolve()
	switch {
	case err != nil:
		return nil // still signed out: the request goes without credentials
	case cred.authorizer != nil:
		return cred.authorizer.Authorize(ctx, h)
	case cred.apiKey != "":
		// As the provider's wire authorizes every request (bearer on the OpenAI wires).
		d, err := cred.provider.WireDescriptor()
		if err != nil {
			return err
		}
		d.Authorize(h, cred.apiKey)
	}
	return nil
}

func (p *pendingAuthorizer) Unauthorized(context.Context) (bool, error) { return false, nil }

func (p *pendingAuthorizer) Succeeded() {}
