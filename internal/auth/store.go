package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/filelock"

	"github.com/gocodex/gocodex/internal/atomicfile"
	"github.com/gocodex/gocodex/internal/keyring"
)

// StoreMode is cli_auth_credentials_store.
type StoreMode string

const (
	StoreFile    StoreMode = "file"
	StoreKeyring StoreMode = "keyring"
	// StoreAuto uses the keyring when one answers, else the file.
	StoreAuto StoreMode = "auto"
)

// ParseStoreMode reads the config value; "" is the default, file.
func ParseStoreMode(s string) (StoreMode, error) {
	switch StoreMode(s) {
	case "", StoreFile:
		return StoreFile, nil
	case StoreKeyring, StoreAuto:
		return StoreMode(s), nil
	}
	return "", fmt.Errorf("cli_auth_credentials_store = %q: expected \"file\", \"keyring\" or \"auto\"", s)
}

// ErrNotLoggedIn is returned when no credentials are stored.
var ErrNotLoggedIn = errors.New("not logged in")

// keyringService is the keyring service Codex stores its sign-in under.
const keyringService = "Codex Auth"

// Store is where the credentials live. Every method is safe to call from several processes at
// once: Update runs under an exclusive lock held across its read and its write.
type Store struct {
	home    string
	mode    StoreMode
	keyring keyring.Keyring
}

// NewStore returns the store of codexHome. kr may be nil for the system keyring.
func NewStore(codexHome string, mode StoreMode, kr keyring.Keyring) *Store {
	if kr == nil {
		kr = keyring.System()
	}
	if mode == "" {
		mode = StoreFile
	}
	return &Store{home: codexHome, mode: mode, keyring: kr}
}

// Path is auth.json's path.
func (s *Store) Path() string { return filepath.Join(s.home, "auth.json") }

// keyringAccount is the keyring entry of this CODEX_HOME, as Codex names it: "cli|" and the
// first 16 hex digits of the SHA-256 of the canonical path.
func (s *Store) keyringAccount() string {
	p := s.home
	if c, err := filepath.EvalSymlinks(p); err == nil {
		p = c
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	sum := sha256.Sum256([]byte(p))
	return "cli|" + hex.EncodeToString(sum[:])[:16]
}

// useKeyring says whether this store reads and writes the keyring.
func (s *Store) useKeyring() (bool, error) {
	switch s.mode {
	case StoreKeyring:
		if err := s.keyring.Available(); err != nil {
			return false, fmt.Errorf("cli_auth_credentials_store = \"keyring\", but no keyring is available: %w", err)
		}
		return true, nil
	case StoreAuto:
		return s.keyring.Available() == nil, nil
	}
	return false, nil
}

// Load reads the credentials; ErrNotLoggedIn when there are none. A malformed file is an error
// naming it, and the file is left alone.
func (s *Store) Load() (*File, error) {
	kr, err := s.useKeyring()
	if err != nil {
		return nil, err
	}
	if kr {
		data, err := s.keyring.Get(keyringService, s.keyringAccount())
		if err == nil {
			f, err := ParseFile([]byte(data))
			if err != nil {
				return nil, fmt.Errorf("failed to deserialize CLI auth from keyring: %w", err)
			}
			return f, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) {
			return nil, fmt.Errorf("failed to load CLI auth from keyring: %w", err)
		}
		if s.mode == StoreKeyring {
			return nil, ErrNotLoggedIn
		}
	}
	return s.loadFile()
}

func (s *Store) loadFile() (*File, error) {
	data, err := os.ReadFile(s.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotLoggedIn
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path(), err)
	}
	f, err := ParseFile(data)
	if err != nil {
		return nil, fmt.Errorf("failed to deserialize CLI auth from file %s: %w", s.Path(), err)
	}
	return f, nil
}

// Save replaces the credentials.
func (s *Store) Save(f *File) error {
	return s.Update(func(*File) (*File, error) { return f, nil })
}

// Update reads the credentials (nil when there are none), lets fn decide, and writes what fn
// returns (nothing when it returns nil), all under the lock, so two processes refreshing at
// once see each other's result instead of overwriting it.
func (s *Store) Update(fn func(cur *File) (*File, error)) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := s.Load()
	if errors.Is(err, ErrNotLoggedIn) {
		cur, err = nil, nil
	}
	if err != nil {
		return err
	}
	next, err := fn(cur)
	if err != nil || next == nil {
		return err
	}
	data, err := next.Marshal()
	if err != nil {
		return err
	}
	if kr, err := s.useKeyring(); err != nil {
		return err
	} else if kr {
		if err := s.keyring.Set(keyringService, s.keyringAccount(), string(data)); err != nil {
			return fmt.Errorf("failed to write CLI auth to keyring: %w", err)
		}
		// A stale file must not outlive the keyring entry that replaces it.
		if err := os.Remove(s.Path()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeFileAtomic(s.Path(), data)
}

// Delete removes the credentials; it reports whether there were any.
func (s *Store) Delete() (bool, error) {
	unlock, err := s.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	removed := false
	if kr, _ := s.useKeyring(); kr {
		err := s.keyring.Delete(keyringService, s.keyringAccount())
		if err == nil {
			removed = true
		} else if !errors.Is(err, keyring.ErrNotFound) {
			return false, fmt.Errorf("failed to delete auth from keyring: %w", err)
		}
	}
	err = os.Remove(s.Path())
	if err == nil {
		removed = true
	} else if !errors.Is(err, os.ErrNotExist) {
		return removed, err
	}
	return removed, nil
}

// lock takes the exclusive lock on auth.json.lock (the file Codex locks too).
func (s *Store) lock() (func(), error) {
	if err := os.MkdirAll(s.home, 0o700); err != nil {
		return nil, err
	}
	return filelock.Exclusive(filepath.Join(s.home, "auth.json.lock"))
}

// writeFileAtomic writes data to a new 0600 file beside path and renames it over path, so a
// reader sees the old file or the new one, never a part.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o600)
}
