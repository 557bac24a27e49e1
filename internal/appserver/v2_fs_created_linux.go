package appserver

import (
	"io/fs"
	"syscall"
)

// createdAtMs is the file's status change time: what Linux's stat offers nearest to a
// creation time.
func createdAtMs(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ctim.Sec*1000 + st.Ctim.Nsec/1e6, true
}
