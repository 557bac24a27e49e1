package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/keyring"
)

// keyringService is the keyring service Codex keeps MCP servers' tokens under.
const keyringService = "Codex MCP Credentials"

// KeyringStore keeps each server's credentials as one keyring entry (account: its Key), a JSON
// document shaped as Codex 0.171 writes it there, so a sign-in made by either is the other's.
type KeyringStore struct{ Keyring keyring.Keyring }

// keyringEntry is Codex's keyring document: the token response as the server sent it, and the
// absolute expiry in milliseconds.
type keyringEntry struct {
	ServerName    string        `json:"server_name"`
	URL           string        `json:"url"`
	Issuer        string        `json:"issuer,omitempty"`
	ClientID      string        `json:"client_id"`
	ClientSecret  string        `json:"client_secret,omitempty"`
	TokenResponse tokenResponse `json:"token_response"`
	ExpiresAt     int64         `json:"expires_at,omitempty"`
}

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope,omitempty"`
}

// Usable is nil, or why the keyring cannot be used.
func (s KeyringStore) Usable() error {
	if err := s.Keyring.Available(); err != nil {
		return fmt.Errorf("mcp_oauth_credentials_store = \"keyring\", but no keyring is available (%v); set it to \"file\" or \"auto\" to keep MCP sign-ins in CODEX_HOME/.credentials.json", err)
	}
	return nil
}

func (s KeyringStore) Load(key string) (*Credentials, error) {
	if err := s.Usable(); err != nil {
		return nil, err
	}
	data, err := s.Keyring.Get(keyringService, key)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the MCP sign-in of %s from the keyring: %w", serverOf(key), err)
	}
	var e keyringEntry
	if err := json.Unmarshal([]byte(data), &e); err != nil || e.TokenResponse.AccessToken == "" {
		// Never echo the entry: it holds tokens.
		return nil, fmt.Errorf("the keyring entry of MCP server %s is not one gocodex can read; sign in again with `gocodex mcp login %s`", serverOf(key), serverOf(key))
	}
	c := &Credentials{
		ServerName: e.ServerName, ServerURL: e.URL, Issuer: e.Issuer,
		ClientID: e.ClientID, ClientSecret: e.ClientSecret,
		AccessToken: e.TokenResponse.AccessToken, RefreshToken: e.TokenResponse.RefreshToken,
		ExpiresAt: e.ExpiresAt, Scopes: strings.Fields(e.TokenResponse.Scope),
	}
	return c, nil
}

func (s KeyringStore) Save(key string, c Credentials) error {
	if err := s.Usable(); err != nil {
		return err
	}
	e := keyringEntry{
		ServerName: c.ServerName, URL: c.ServerURL, Issuer: c.Issuer,
		ClientID: c.ClientID, ClientSecret: c.ClientSecret, ExpiresAt: c.ExpiresAt,
		TokenResponse: tokenResponse{
			AccessToken: c.AccessToken, TokenType: "bearer", RefreshToken: c.RefreshToken,
			Scope: strings.Join(c.Scopes, " "),
		},
	}
	if c.ExpiresAt > 0 {
		if left := time.Until(time.UnixMilli(c.ExpiresAt)); left > 0 {
			e.TokenResponse.ExpiresIn = int64(left / time.Second)
		}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := s.Keyring.Set(keyringService, key, string(data)); err != nil {
		return fmt.Errorf("saving the MCP sign-in of %s in the keyring: %w", serverOf(key), err)
	}
	return nil
}

func (s KeyringStore) Delete(key string) (bool, error) {
	if err := s.Usable(); err != nil {
		return false, err
	}
	err := s.Keyring.Delete(keyringService, key)
	if errors.Is(err, keyring.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing the MCP sign-in of %s from the keyring: %w", serverOf(key), err)
	}
	return true, nil
}

// serverOf is the server name of a Key, for messages.
func serverOf(key string) string {
	name, _, _ := strings.Cut(key, "|")
	return name
}

// autoStore is mcp_oauth_credentials_store = "auto": the keyring when one answers (asked once,
// when first needed: most runs never sign in anywhere), else the file. Reads fall back to the
// file, where an earlier sign-in without a keyring left its tokens; logout clears both.
type autoStore struct {
	keyring KeyringStore
	file    FileStore

	once   sync.Once
	useKey bool
}

func (s *autoStore) keyringUp() bool {
	s.once.Do(func() { s.useKey = s.keyring.Keyring.Available() == nil })
	return s.useKey
}

func (s *autoStore) Load(key string) (*Credentials, error) {
	if s.keyringUp() {
		if c, err := s.keyring.Load(key); err != nil || c != nil {
			return c, err
		}
	}
	return s.file.Load(key)
}

func (s *autoStore) Save(key string, c Credentials) error {
	if s.keyringUp() {
		if err := s.keyring.Save(key, c); err != nil {
			// As Codex's auto: a keyring that refuses the entry leaves it to the file.
			return s.file.Save(key, c)
		}
		// The keyring now holds the newest tokens: an older file entry must not shadow them
		// when the keyring is away.
		_, err := s.file.Delete(key)
		return err
	}
	return s.file.Save(key, c)
}

func (s *autoStore) Delete(key string) (bool, error) {
	var found bool
	if s.keyringUp() {
		f, err := s.keyring.Delete(key)
		if err != nil {
			return false, err
		}
		found = f
	}
	f, err := s.file.Delete(key)
	return found || f, err
}
