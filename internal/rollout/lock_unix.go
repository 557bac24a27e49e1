//go:build unix

package rollout

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// A recorder holds a shared flock on its rollout while it writes; the migration takes an
// exclusive one before it replaces a file, so a thread being written is reported busy
// instead of losing the lines written meanwhile.

// lockShared waits for a shared lock on f (a migration holds the exclusive one only while
// it rewrites the file).
func lockShared(f *os.File) error { return flock(f, unix.LOCK_SH) }

// tryLockExclusive takes an exclusive lock on f if nobody holds one; busy is true when a
// recorder is writing the file.
func tryLockExclusive(f *os.File) (busy bool, err error) {
	err = flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) { _ = flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// sameFile reports whether f is still the file at path (a migration replaces files by
// renaming a new one over them).
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
