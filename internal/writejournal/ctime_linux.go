package writejournal

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the inode's change time: set by the kernel on every write, rename, chmod or
// link, and never settable by an unprivileged program (unlike the modification time).
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
