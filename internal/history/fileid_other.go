//go:build !unix && !windows

package history

import "io/fs"

func fileID(fs.FileInfo) (uint64, bool) { return 0, false }
