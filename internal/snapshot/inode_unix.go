//go:build unix

package snapshot

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number: a file replaced by another of the same size and mtime
// (an editor's save by rename) is not taken for the cached one.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
