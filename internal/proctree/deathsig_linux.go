package proctree

import "syscall"

// dieWithParent has the kernel kill the child when this process dies.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
