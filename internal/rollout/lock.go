package rollout

import (
	"errors"
	"os"

	"github.com/gocodex/gocodex/internal/filelock"
)

// A recorder holds a shared lock on its rollout while it writes; the migration takes an
// exclusive one before it replaces a file, so a thread being written is reported busy
// instead of losing the lines written meanwhile.

// lockShared waits for a shared lock on f (a migration holds the exclusive one only while
// it rewrites the file).
func lockShared(f *os.File) error { return filelock.Lock(f, filelock.ModeShared) }

// tryLockExclusive takes an exclusive lock on f if nobody holds one; busy is true when a
// recorder is writing the file.
func tryLockExclusive(f *os.File) (busy bool, err error) {
	err = filelock.TryLock(f, filelock.ModeExclusive)
	if errors.Is(err, filelock.ErrBusy) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) { _ = filelock.Unlock(f) }

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
