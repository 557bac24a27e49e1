// Package filelock is the one cross-process lock the edges and the app-server share: an
// advisory lock on an open file (flock on Unix, LockFileEx on Windows), shared or exclusive,
// waiting or not, and Exclusive for the common case of a lock file next to what it guards.
// Locks are advisory on every platform: they order the processes that take them and never
// stop a plain read or write.
package filelock
