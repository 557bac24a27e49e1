package appserver

import (
	"io/fs"
	"syscall"
)

// createdAtMs is the file's birth time, which macOS file systems keep.
func createdAtMs(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Birthtimespec.Sec*1000 + st.Birthtimespec.Nsec/1e6, true
}
