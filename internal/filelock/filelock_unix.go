//go:build unix

package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

// Exclusive holds an exclusive flock on path (created 0600 if missing) until unlock: two
// processes over one CODEX_HOME (a TUI and an app-server, two app-servers) take turns
// instead of losing each other's changes to a shared file.
func Exclusive(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
