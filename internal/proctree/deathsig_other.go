//go:build unix && !linux

package proctree

import "syscall"

// dieWithParent: only Linux has a parent-death signal; elsewhere the child is ended by Kill.
func dieWithParent(*syscall.SysProcAttr) {}
