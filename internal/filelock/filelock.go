package filelock

import (
	"errors"
	"fmt"
	"os"
)

// Mode is what a lock allows others: shared locks coexist, an exclusive lock excludes every
// other lock on the file.
type Mode int

const (
	ModeShared Mode = iota
	ModeExclusive
)

// ErrBusy is returned by TryLock when another process holds a conflicting lock.
var ErrBusy = errors.New("file is locked by another process")

// Lock waits for a lock of mode on f; Unlock or closing f releases it.
func Lock(f *os.File, mode Mode) error { return lock(f, mode, true) }

// TryLock takes a lock of mode on f without waiting; it fails with ErrBusy when another
// process holds a conflicting one.
func TryLock(f *os.File, mode Mode) error { return lock(f, mode, false) }

// Unlock releases the lock f holds.
func Unlock(f *os.File) error { return unlock(f) }

// Exclusive holds an exclusive lock on path (created 0600 if missing) until unlock: two
// processes over one CODEX_HOME (a TUI and an app-server, two app-servers) take turns
// instead of losing each other's changes to a shared file.
func Exclusive(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := Lock(f, ModeExclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = Unlock(f)
		f.Close()
	}, nil
}
