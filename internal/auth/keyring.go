package auth

import (
	"errors"

	gokeyring "github.com/zalando/go-keyring"
)

// keyringService is the keyring service Codex stores its credentials under.
const keyringService = "Codex Auth"

// ErrKeyNotFound is a Keyring's answer for an entry that does not exist.
var ErrKeyNotFound = errors.New("keyring entry not found")

// Keyring is the OS credential store (the Secret Service on Linux, the Keychain on macOS, the
// Credential Manager on Windows).
type Keyring interface {
	// Available reports why the keyring cannot be used, or nil.
	Available() error
	Get(service, account string) (string, error)
	Set(service, account, secret string) error
	Delete(service, account string) error
}

// systemKeyring is the OS keyring through github.com/zalando/go-keyring, without cgo on every
// system: D-Bus Secret Service on Linux, /usr/bin/security on macOS (the secret goes through
// its standard input, never its arguments), wincred on Windows.
type systemKeyring struct{}

func (systemKeyring) Available() error {
	_, err := gokeyring.Get(keyringService, "availability-probe")
	if err == nil || errors.Is(err, gokeyring.ErrNotFound) {
		return nil
	}
	return err
}

func (systemKeyring) Get(service, account string) (string, error) {
	v, err := gokeyring.Get(service, account)
	if errors.Is(err, gokeyring.ErrNotFound) {
		return "", ErrKeyNotFound
	}
	return v, err
}

func (systemKeyring) Set(service, account, secret string) error {
	return gokeyring.Set(service, account, secret)
}

func (systemKeyring) Delete(service, account string) error {
	err := gokeyring.Delete(service, account)
	if errors.Is(err, gokeyring.ErrNotFound) {
		return ErrKeyNotFound
	}
	return err
}
