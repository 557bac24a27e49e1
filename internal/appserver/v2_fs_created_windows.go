package appserver

import (
	"io/fs"
	"syscall"
)

// createdAtMs is the file's creation time.
func createdAtMs(fi fs.FileInfo) (int64, bool) {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return 0, false
	}
	return d.CreationTime.Nanoseconds() / 1e6, true
}
