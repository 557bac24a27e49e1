//go:build !unix

package rollout

import "os"

// Without flock, a thread being written is not detected: do not migrate rollouts while
// gocodex runs.
func lockShared(*os.File) error               { return nil }
func tryLockExclusive(*os.File) (bool, error) { return false, nil }
func unlock(*os.File)                         {}
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
