// Package oauth signs gocodex in to MCP servers protected by OAuth (hosted servers such as
// Linear, Sentry or Notion), as Codex 0.171 does: discovery from the server's 401 (RFC 9728
// protected-resource metadata, RFC 8414 authorization-server metadata), dynamic client
// registration (RFC 7591) or a configured client id, the authorization code flow with PKCE
// through a local callback, and tokens refreshed before they expire and after a 401. The
// protocol is the MCP Go SDK's (its auth package, on golang.org/x/oauth2); this package keeps
// the credentials where Codex keeps them, so a sign-in made by either works for both.
package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/filelock"

	"github.com/gocodex/gocodex/internal/atomicfile"
	"github.com/gocodex/gocodex/internal/keyring"
)

// Credentials are one server's tokens, as Codex 0.171 writes them in
// `$CODEX_HOME/.credentials.json` (mcp_oauth_credentials_store = "file").
type Credentials struct {
	ServerName   string `json:"server_name"`
	ServerURL    string `json:"server_url"`
	Issuer       string `json:"issuer,omitempty"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AccessToken  string `json:"access_token"`
	// ExpiresAt is in milliseconds since the epoch; 0 when the server gave no lifetime.
	ExpiresAt    int64    `json:"expires_at,omitempty"`
	RefreshToken string   `json:"refresh_token,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// TokenEndpoint is gocodex's own: where to refresh without discovering it again (Codex
	// finds it from the issuer, as gocodex does when it is missing).
	TokenEndpoint string `json:"token_endpoint,omitempty"`
}

// Key is the entry a server's credentials are stored under: "NAME|" and the first 16 hex
// digits of the SHA-256 of the server's transport as Codex describes it
// ({"type":"http","url":…,"headers":{…}}), so a changed URL or header asks for a new sign-in.
func Key(name, url string, headers map[string]string) string {
	if headers == nil {
		headers = map[string]string{}
	}
	desc, _ := json.Marshal(struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}{"http", url, headers}) // encoding/json sorts the headers' keys
	sum := sha256.Sum256(desc)
	return name + "|" + hex.EncodeToString(sum[:])[:16]
}

// Store keeps servers' credentials by Key.
type Store interface {
	// Load returns the entry under key, or nil when there is none.
	Load(key string) (*Credentials, error)
	// Save stores c under key.
	Save(key string, c Credentials) error
	// Delete removes the entry under key; found says whether there was one.
	Delete(key string) (found bool, err error)
}

// FileStore is `$CODEX_HOME/.credentials.json`: a JSON object of entries by Key, 0600,
// rewritten atomically under a lock, removed when its last entry goes.
type FileStore struct{ Home string }

func (s FileStore) path() string { return filepath.Join(s.Home, ".credentials.json") }

// Load returns the entry under key, or nil when there is none.
func (s FileStore) Load(key string) (*Credentials, error) {
	all, err := s.read()
	if err != nil {
		return nil, err
	}
	c, ok := all[key]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// Save stores c under key.
func (s FileStore) Save(key string, c Credentials) error {
	return s.update(func(all map[string]Credentials) bool { all[key] = c; return true })
}

// Delete removes the entry under key; found says whether there was one.
func (s FileStore) Delete(key string) (found bool, err error) {
	err = s.update(func(all map[string]Credentials) bool {
		_, found = all[key]
		delete(all, key)
		return found
	})
	return found, err
}

func (s FileStore) read() (map[string]Credentials, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Credentials{}, nil
	}
	if err != nil {
		return nil, err
	}
	all := map[string]Credentials{}
	if err := json.Unmarshal(b, &all); err != nil {
		// Never echo the file: it holds tokens.
		return nil, fmt.Errorf("%s is not a credentials file gocodex can read (invalid JSON); fix or remove it and sign in again with `gocodex mcp login`", s.path())
	}
	return all, nil
}

// update applies change to the entries under the store's lock and writes them back when it
// reports a change.
func (s FileStore) update(change func(map[string]Credentials) bool) error {
	if err := os.MkdirAll(s.Home, 0o700); err != nil {
		return err
	}
	unlock, err := filelock.Exclusive(s.path() + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	if !change(all) {
		return nil
	}
	if len(all) == 0 {
		if err := os.Remove(s.path()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path(), append(b, '\n'), 0o600)
}

// Names lists the server names with stored credentials (for messages), sorted.
func (s FileStore) Names() ([]string, error) {
	all, err := s.read()
	if err != nil {
		return nil, err
	}
	var names []string
	for k := range all {
		name, _, _ := strings.Cut(k, "|")
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// StoreFor is the store mcp_oauth_credentials_store names, as Codex reads the setting: the
// file for "file", the OS keyring for "keyring" (an error on use when there is none, never a
// silent file), and for "auto" (the default) the keyring when one answers, else the file.
func StoreFor(codexHome, mode string) Store {
	return storeFor(codexHome, mode, keyring.System())
}

// UsableStoreFor is StoreFor for a sign-in: a keyring that is named but not there is said
// before the sign-in starts, not after the person has signed in.
func UsableStoreFor(codexHome, mode string) (Store, error) {
	store := StoreFor(codexHome, mode)
	if ks, ok := store.(KeyringStore); ok {
		if err := ks.Usable(); err != nil {
			return nil, err
		}
	}
	return store, nil
}

func storeFor(codexHome, mode string, kr keyring.Keyring) Store {
	file := FileStore{Home: codexHome}
	switch mode {
	case "file":
		return file
	case "keyring":
		return KeyringStore{Keyring: kr}
	}
	return &autoStore{keyring: KeyringStore{Keyring: kr}, file: file}
}
