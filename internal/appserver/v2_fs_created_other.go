//go:build !linux && !darwin && !windows

package appserver

import "io/fs"

// createdAtMs is unknown here; the modification time stands in.
func createdAtMs(fs.FileInfo) (int64, bool) { return 0, false }
