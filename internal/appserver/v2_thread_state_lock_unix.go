//go:build unix

package appserver

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockStateFile holds an exclusive flock on path until unlock: two app-servers over the same
// CODEX_HOME take turns reading and rewriting the thread state instead of losing each
// other's changes.
func lockStateFile(path string) (unlock func(), err error) {
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
