// Package atomicfile writes a file whole or not at all: a temporary file beside the target,
// its mode set before any byte is written (a file holding a secret is never readable by
// others, not even for a moment), synced, then renamed over the target. A failure removes
// the temporary file and leaves the target as it was.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm. The folder must exist.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
