package app

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
)

// ErrNoAPIKey is SignIn.SaveAPIKey's answer to an empty key.
var ErrNoAPIKey = errors.New("no API key given")

// SignIn are the ways a face signs the person in to OpenAI (the TUI's sign-in screen), each
// storing the credentials where the configuration says: with ChatGPT in the browser or with
// a device code (what the person must see goes to out), or an API key they paste.
type SignIn struct {
	Browser, Device func(ctx context.Context, out io.Writer) error
	// SaveAPIKey stores the key as typed (surrounding blanks dropped); ErrNoAPIKey when empty.
	SaveAPIKey func(key string) error
}

// NewSignIn is the sign-in of cfg's credential store; originator names the face in the
// login's requests, getenv is the environment (GOCODEX_LOGIN_ISSUER, GOCODEX_LOGIN_PORT, the
// proxy settings).
func NewSignIn(cfg *config.Config, originator string, getenv func(string) string) (*SignIn, error) {
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return nil, err
	}
	httpClient, err := auth.HTTPClient(getenv)
	if err != nil {
		return nil, err
	}
	lo := auth.LoginOptions{Originator: originator, HTTP: httpClient, Issuer: getenv("GOCODEX_LOGIN_ISSUER")}
	if v := getenv("GOCODEX_LOGIN_PORT"); v != "" {
		lo.Port, _ = strconv.Atoi(v)
	}
	store := auth.NewStore(cfg.CodexHome, mode, nil)
	login := func(run func(context.Context, *auth.Store, auth.LoginOptions) (*auth.File, error)) func(context.Context, io.Writer) error {
		return func(ctx context.Context, out io.Writer) error {
			o := lo
			o.Out = out
			_, err := run(ctx, store, o)
			return err
		}
	}
	return &SignIn{
		Browser: login(auth.BrowserLogin),
		Device:  login(auth.DeviceLogin),
		SaveAPIKey: func(key string) error {
			key = auth.NormalizeKey(key)
			if key == "" {
				return ErrNoAPIKey
			}
			return store.Save(&auth.File{Mode: auth.ModeAPIKey, APIKey: &key})
		},
	}, nil
}

// AccountText is how a face names the sign-in cfg's provider uses (the TUI's /status): the
// ChatGPT account's email and plan, an API key, or none; "" for a provider without OpenAI
// sign-in.
func AccountText(cfg *config.Config, getenv func(string) string) string {
	if !cfg.ModelProvider.RequiresOpenAIAuth {
		return ""
	}
	mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
	if err != nil {
		return ""
	}
	f, err := auth.NewStore(cfg.CodexHome, mode, nil).Load()
	if err != nil {
		if getenv("OPENAI_API_KEY") != "" || getenv("CODEX_API_KEY") != "" {
			return "API key from the environment"
		}
		return "not signed in"
	}
	if f.Mode == auth.ModeAPIKey {
		return "API key"
	}
	if f.Tokens != nil {
		if cl, err := auth.IDClaims(f.Tokens.IDToken); err == nil && cl.Email != "" {
			if cl.PlanType != "" {
				return cl.Email + " (" + cl.PlanType + ")"
			}
			return cl.Email
		}
	}
	return "ChatGPT"
}
