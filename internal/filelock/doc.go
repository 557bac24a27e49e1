// Package filelock is the one cross-process lock the edges and the app-server share: an
// exclusive flock on a lock file next to what it guards.
package filelock
