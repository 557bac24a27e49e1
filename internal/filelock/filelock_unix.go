//go:build unix

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

func lock(f *os.File, mode Mode, wait bool) error {
	how := unix.LOCK_SH
	if mode == ModeExclusive {
		how = unix.LOCK_EX
	}
	if !wait {
		how |= unix.LOCK_NB
	}
	err := flock(f, how)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrBusy
	}
	return err
}

func unlock(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = sc.Control(func(fd uintptr) {
		for {
			opErr = unix.Flock(int(fd), how)
			if opErr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return opErr
}
