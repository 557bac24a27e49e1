package e2e

import (
	"os"
	"syscall"
)

// peakRSSKiB is a finished process's peak resident set size in KiB (macOS counts bytes).
func peakRSSKiB(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss / 1024
	}
	return 0
}
