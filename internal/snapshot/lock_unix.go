//go:build unix

package snapshot

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile holds an exclusive flock on path until unlock: two processes driving the same
// thread (a TUI and an app-server) take turns instead of losing each other's journal updates.
func lockFile(path string) (unlock func(), err error) {
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
