package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/model"
)

// Accounts: this engine signs in with an API key only. account/login/start with type
// apiKey stores it in CODEX_HOME/auth.json (Codex's file, mode 0600) and account/logout
// removes it; account/read says whether a key is there.

func registerAccountMethods(s *Server) {
	s.Handle("account/read", Typed(func(ctx context.Context, c *Conn, _ struct{}) (accountResponse, error) {
		return accountRead(s), nil
	}))
	s.Handle("account/login/start", Typed(func(ctx context.Context, c *Conn, p loginParams) (loginResponse, error) {
		if p.Type != "apiKey" {
			return loginResponse{}, InvalidRequest("login type `" + p.Type + "` is not supported; use apiKey")
		}
		if err := saveAPIKey(codexHome(s), p.APIKey); err != nil {
			return loginResponse{}, internalError(err.Error())
		}
		context.AfterFunc(ctx, func() {
			_ = c.Notify(c.Context(), "account/login/completed", map[string]any{"loginId": nil, "success": true, "error": nil})
			_ = c.Notify(c.Context(), "account/updated", map[string]any{"authMode": "apikey", "planType": nil})
		})
		return loginResponse{Type: "apiKey"}, nil
	}))
	s.Handle("account/logout", TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (struct{}, error) {
		if err := os.Remove(filepath.Join(codexHome(s), "auth.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return struct{}{}, internalError(err.Error())
		}
		context.AfterFunc(ctx, func() {
			_ = c.Notify(c.Context(), "account/updated", map[string]any{"authMode": nil, "planType": nil})
		})
		return struct{}{}, nil
	}))
}

type loginParams struct {
	Type   string `json:"type"`
	APIKey string `json:"apiKey"`
}

type loginResponse struct {
	Type string `json:"type"`
}

type accountResponse struct {
	Account            any     `json:"account"`
	RequiresOpenaiAuth bool    `json:"requiresOpenaiAuth"`
	UserID             *string `json:"userId"`
}

// accountRead reports the API-key account when the provider takes OpenAI auth and a key is
// stored or in the environment.
func accountRead(s *Server) accountResponse {
	cfg := s.opts.Config
	if cfg == nil {
		return accountResponse{}
	}
	if !cfg.ModelProvider.RequiresOpenAIAuth {
		return accountResponse{}
	}
	out := accountResponse{RequiresOpenaiAuth: true}
	if _, err := model.ResolveAPIKey(cfg.ModelProvider, model.AuthOptions{Getenv: s.opts.Getenv, CodexHome: cfg.CodexHome}); err == nil {
		out.Account = map[string]any{"type": "apiKey"}
	}
	return out
}

// saveAPIKey writes auth.json the way Codex's API-key login does.
func saveAPIKey(home, key string) error {
	if key == "" {
		return errors.New("apiKey must not be empty")
	}
	data, err := json.MarshalIndent(map[string]any{"auth_mode": "apikey", "OPENAI_API_KEY": key, "tokens": nil, "last_refresh": nil}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	path := filepath.Join(home, "auth.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
