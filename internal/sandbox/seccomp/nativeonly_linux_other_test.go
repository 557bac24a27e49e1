//go:build linux && !amd64

package seccomp

func nativeOnly() map[string]uint32 { return nil }
