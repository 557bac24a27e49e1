package app

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
)

// credentials are how a model client proves who it is: an API key, or (ChatGPT sign-in) an
// authorizer with the ChatGPT backend as the provider's base.
type credentials struct {
	provider   model.ProviderInfo
	apiKey     string
	authorizer model.Authorizer
}

// credentialsFor resolves the provider's credentials with Codex's precedence: the provider's
// own (experimental_bearer_token, env_key), then for OpenAI-auth providers CODEX_API_KEY,
// OPENAI_API_KEY, then the stored sign-in (auth.json or the keyring): an API key, or ChatGPT
// tokens, which send the built-in provider to the ChatGPT backend.
func (a *App) credentialsFor(cfg *config.Config, originator string, httpClient *http.Client) (credentials, error) {
	p := cfg.ModelProvider
	out := credentials{provider: p}
	if cfg.ModelProviderID == model.ProviderAzure && p.BaseURL == "" {
		return out, errors.New("model provider `azure` needs your resource's endpoint: set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com) or base_url in [model_providers.azure]")
	}
	if a.opts.ExternalAuth != nil && p.RequiresOpenAIAuth && p.EnvKey == "" && p.ExperimentalBearerToken == "" {
		if ext := a.opts.ExternalAuth(); ext != nil {
			if p.BaseURL == model.DefaultOpenAIBaseURL {
				base, err := chatGPTResponsesBase(cfg.ChatGPTBaseURL)
				if err != nil {
					return out, err
				}
				out.provider.BaseURL = base
			}
			out.authorizer = ext
			return out, nil
		}
	}
	if p.ExperimentalBearerToken != "" || p.EnvKey != "" || !p.RequiresOpenAIAuth ||
		a.opts.Getenv("CODEX_API_KEY") != "" || a.opts.Getenv("OPENAI_API_KEY") != "" {
		key, err := model.ResolveAPIKey(p, model.AuthOptions{Getenv: a.opts.Getenv})
		out.apiKey = key
		return out, err
	}
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return out, err
	}
	store := auth.NewStore(cfg.CodexHome, mode, nil)
	f, err := store.Load()
	if errors.Is(err, auth.ErrNotLoggedIn) {
		_, err := model.ResolveAPIKey(p, model.AuthOptions{Getenv: a.opts.Getenv})
		return out, err // the missing-key error, naming OPENAI_API_KEY and `codex login`
	}
	if err != nil {
		return out, err
	}
	if f.Mode == auth.ModeAPIKey {
		if f.APIKey == nil || *f.APIKey == "" {
			return out, fmt.Errorf("%s holds no API key: run `gocodex login`", store.Path())
		}
		out.apiKey = *f.APIKey
		return out, nil
	}
	if cfg.ForcedLoginMethod == "api" {
		return out, errors.New("forced_login_method = \"api\", but you are signed in with ChatGPT: run `gocodex login --with-api-key`")
	}
	if want := cfg.ForcedChatGPTWorkspaceID; want != "" && storedAccountID(f) != want {
		return out, fmt.Errorf("forced_chatgpt_workspace_id = %q, but you are signed in to another ChatGPT workspace: run `gocodex login` and choose that workspace", want)
	}
	if p.BaseURL == model.DefaultOpenAIBaseURL {
		base, err := chatGPTResponsesBase(cfg.ChatGPTBaseURL)
		if err != nil {
			return out, err
		}
		out.provider.BaseURL = base
	}
	ep := auth.EndpointsFromEnv(a.opts.Getenv, originator)
	ep.HTTP = httpClient
	out.authorizer = auth.NewChatGPT(store, ep, auth.ChatGPTOptions{
		BaseURL:   cfg.ChatGPTBaseURL,
		UserAgent: model.DefaultUserAgent(originator),
		Logger:    a.opts.Logger,
	})
	return out, nil
}

// chatGPTResponsesBase is where ChatGPT-plan turns go: the origin of chatgpt_base_url, then
// /backend-api/codex (Codex keeps that path whatever the base's own path is). The backend must
// be HTTPS, as Codex requires.
func chatGPTResponsesBase(chatgptBase string) (string, error) {
	u, err := url.Parse(chatgptBase)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("workspace backend must use an HTTPS origin without credentials (chatgpt_base_url = %q)", chatgptBase)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host, "/") + "/backend-api/codex", nil
}

// storedAccountID is the ChatGPT workspace (account) the stored sign-in belongs to.
func storedAccountID(f *auth.File) string {
	if f.Tokens == nil {
		return ""
	}
	if f.Tokens.AccountID != nil && *f.Tokens.AccountID != "" {
		return *f.Tokens.AccountID
	}
	if c, err := auth.IDClaims(f.Tokens.IDToken); err == nil {
		return c.AccountID
	}
	return ""
}
