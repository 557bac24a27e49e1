package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Native returns the Arch of the running binary.
func Native() (Arch, error) { return ArchFor(runtime.GOARCH) }

// Install loads the filter into the calling thread. The caller must hold the OS thread
// (runtime.LockOSThread) and have set no_new_privs; the filter is deliberately not
// synchronised to other threads because the helper execs from this thread right after, and
// execve carries only this thread's filter into the new program.
func Install(opts Options) error {
	arch, err := Native()
	if err != nil {
		return err
	}
	insns, err := Program(arch, opts)
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return fmt.Errorf("assemble seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	runtime.KeepAlive(filter)
	return nil
}
