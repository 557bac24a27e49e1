//go:build !unix

package filelock

// Exclusive has no cross-process lock where flock is missing: changes within one process are
// still ordered by the caller's own mutex; two processes must not write the file at once.
func Exclusive(string) (unlock func(), err error) { return func() {}, nil }
