//go:build unix

package writejournal

import (
	"errors"
	"syscall"
)

// processAlive says whether pid still runs (a process of another user counts).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
