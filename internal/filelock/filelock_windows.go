//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Windows byte-range locks are mandatory: a locked range cannot be read or written, even
// through the holder's own handle under a shared lock. Locking one byte far past any real
// end of file keeps them advisory, as flock is: the data itself is never locked.
const (
	lockOffsetLow  = 0xFFFFFFFE
	lockOffsetHigh = 0xFFFFFFFF
)

func lock(f *os.File, mode Mode, wait bool) error {
	var flags uint32
	if mode == ModeExclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	return control(f, func(h windows.Handle) error {
		ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
		err := windows.LockFileEx(h, flags, 0, 1, 0, ol)
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return ErrBusy
		}
		return err
	})
}

func unlock(f *os.File) error {
	return control(f, func(h windows.Handle) error {
		ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
		return windows.UnlockFileEx(h, 0, 1, 0, ol)
	})
}

func control(f *os.File, op func(windows.Handle) error) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := sc.Control(func(fd uintptr) { opErr = op(windows.Handle(fd)) }); err != nil {
		return err
	}
	return opErr
}
