//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

var errNoLocks = errors.New("file locks are not supported on this platform")

func lock(*os.File, Mode, bool) error { return errNoLocks }
func unlock(*os.File) error           { return nil }
