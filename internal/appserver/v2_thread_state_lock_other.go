//go:build !unix

package appserver

// lockStateFile is a no-op where flock is missing: changes within one process are still
// ordered by threadState.mu.
func lockStateFile(string) (func(), error) { return func() {}, nil }
