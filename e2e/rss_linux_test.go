package e2e

import (
	"os"
	"syscall"
)

// peakRSSKiB is a finished process's peak resident set size in KiB.
func peakRSSKiB(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
