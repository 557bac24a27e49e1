package seccomp

import "golang.org/x/sys/unix"

// nativeOnly are the calls only amd64 has (arm64 reaches them through the *at forms).
func nativeOnly() map[string]uint32 {
	return map[string]uint32{"open": unix.SYS_OPEN, "creat": unix.SYS_CREAT, "chmod": unix.SYS_CHMOD, "mknod": unix.SYS_MKNOD}
}
