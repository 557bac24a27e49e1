//go:build unix

package mcp

import "syscall"

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
