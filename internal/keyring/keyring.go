// Package keyring is the operating system's credential store, where Codex keeps its sign-in
// (cli_auth_credentials_store) and MCP servers' OAuth tokens (mcp_oauth_credentials_store)
// when asked to: the Secret Service over D-Bus on Linux, the Keychain on macOS, the
// Credential Manager on Windows.
package keyring

import (
	"errors"

	gokeyring "github.com/zalando/go-keyring"
)

// ErrNotFound is a Keyring's answer for an entry that does not exist.
var ErrNotFound = errors.New("keyring entry not found")

// Keyring is a credential store of secrets by service and account.
type Keyring interface {
	// Available reports why the keyring cannot be used, or nil.
	Available() error
	Get(service, account string) (string, error)
	Set(service, account, secret string) error
	Delete(service, account string) error
}

// System is the OS keyring through github.com/zalando/go-keyring, without cgo on every
// system: D-Bus Secret Service on Linux, /usr/bin/security on macOS (the secret goes through
// its standard input, never its arguments), wincred on Windows. Its entries are found by
// service and account alone, so Codex's entries (which carry more attributes) are read and
// Codex finds gocodex's.
func System() Keyring { return system{} }

type system struct{}

// probeService is looked up to learn whether the keyring answers at all.
const probeService = "Codex Auth"

func (system) Available() error {
	_, err := gokeyring.Get(probeService, "availability-probe")
	if err == nil || errors.Is(err, gokeyring.ErrNotFound) {
		return nil
	}
	return err
}

func (system) Get(service, account string) (string, error) {
	v, err := gokeyring.Get(service, account)
	if errors.Is(err, gokeyring.ErrNotFound) {
		return "", ErrNotFound
	}
	return v, err
}

func (system) Set(service, account, secret string) error {
	return gokeyring.Set(service, account, secret)
}

func (system) Delete(service, account string) error {
	err := gokeyring.Delete(service, account)
	if errors.Is(err, gokeyring.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
