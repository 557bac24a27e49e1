//go:build windows

package history

import (
	"io/fs"
	"syscall"
)

// Windows has no inode to hand out; Codex uses the file's creation time (100 ns ticks).
func fileID(fi fs.FileInfo) (uint64, bool) {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return 0, false
	}
	return uint64(d.CreationTime.HighDateTime)<<32 | uint64(d.CreationTime.LowDateTime), true
}
