// Package seccomp builds and installs the classic-BPF seccomp filter the sandbox helper puts
// in front of every confined command: no ptrace, no io_uring (whose submissions bypass a
// syscall filter entirely), no kernel keyrings (shared by every process of the user), no
// terminal-injection ioctls (TIOCSTI, TIOCLINUX: they type into the terminal the command shares
// with the person's shell), and, unless the policy allows the network, no socket other than
// AF_UNIX and none of the calls that would use one. The program is plain data so that tests
// can run it on synthetic seccomp_data in golang.org/x/net/bpf's VM without a kernel.
package seccomp

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// Arch selects the syscall table and the audit architecture the filter checks first.
type Arch struct {
	Name      string
	AuditArch uint32
	// X32Bit is set on amd64, where x32 syscalls carry this bit in the number and would
	// otherwise reach the kernel under numbers the filter never names.
	X32Bit uint32
	nr     map[string]uint32
}

// The audit architectures (linux/audit.h) and seccomp return actions (linux/seccomp.h).
const (
	auditArchX8664   = 0xc000003e
	auditArchAArch64 = 0xc00000b7

	RetAllow = 0x7fff0000
	retErrno = 0x00050000
	// RetEPERM is the action for every denied call: the caller sees a plain EPERM, which
	// programs report as "Operation not permitted" and the engine recognises as a denial.
	RetEPERM = retErrno | 1

	afUnix = 1
)

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low 32 bits of args[0] on the little-endian architectures we support
	offArg1 = 24 // low 32 bits of args[1]: ioctl's request is an unsigned int, so the kernel
	// ignores the high bits and the filter must too
)

// The ioctl requests that push input into a terminal (asm-generic/ioctls.h, the same on both
// architectures): TIOCSTI fakes typed bytes, TIOCLINUX's paste subcommand pastes a selection.
const (
	TIOCSTI   = 0x5412
	TIOCLINUX = 0x541c
)

// AMD64 and ARM64 are the two architectures gocodex ships for.
var (
	AMD64 = Arch{Name: "amd64", AuditArch: auditArchX8664, X32Bit: 0x40000000, nr: map[string]uint32{
		"socket": 41, "connect": 42, "accept": 43, "sendto": 44, "shutdown": 48, "bind": 49,
		"listen": 50, "getsockname": 51, "getpeername": 52, "socketpair": 53, "setsockopt": 54,
		"getsockopt": 55, "ptrace": 101, "accept4": 288, "recvmmsg": 299, "sendmmsg": 307,
		"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
		"ioctl": 16, "add_key": 248, "request_key": 249, "keyctl": 250,
	}}
	ARM64 = Arch{Name: "arm64", AuditArch: auditArchAArch64, nr: map[string]uint32{
		"ptrace": 117, "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202,
		"connect": 203, "getsockname": 204, "getpeername": 205, "sendto": 206, "setsockopt": 208,
		"getsockopt": 209, "shutdown": 210, "accept4": 242, "recvmmsg": 243, "sendmmsg": 269,
		"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
		"ioctl": 29, "add_key": 217, "request_key": 218, "keyctl": 219,
	}}
)

// Nr returns the syscall number of name on a, for tests and diagnostics.
func (a Arch) Nr(name string) (uint32, bool) {
	n, ok := a.nr[name]
	return n, ok
}

// ArchFor returns the Arch for a GOARCH value.
func ArchFor(goarch string) (Arch, error) {
	switch goarch {
	case "amd64":
		return AMD64, nil
	case "arm64":
		return ARM64, nil
	}
	return Arch{}, fmt.Errorf("seccomp filter: unsupported architecture %s", goarch)
}

// AlwaysDenied are refused whatever the policy says.
var AlwaysDenied = []string{"ptrace", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"add_key", "request_key", "keyctl"}

// DeniedIoctls are the ioctl requests refused whatever the policy says.
var DeniedIoctls = []uint32{TIOCSTI, TIOCLINUX}

// NetworkDenied are refused when the policy restricts the network. sendmsg and recvmsg stay
// allowed: without an IP socket they can only reach AF_UNIX peers (and fd passing needs them).
var NetworkDenied = []string{
	"connect", "accept", "accept4", "bind", "listen", "getpeername", "getsockname",
	"shutdown", "sendto", "sendmmsg", "recvmmsg", "getsockopt", "setsockopt",
}

// Options chooses what the filter lets through.
type Options struct {
	AllowNetwork bool
}

// Program returns the filter for arch a.
func Program(a Arch, opts Options) ([]bpf.Instruction, error) {
	b := &builder{}
	b.emit(bpf.LoadAbsolute{Off: offArch, Size: 4})
	b.jumpIfNot(a.AuditArch, "deny")
	b.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.X32Bit != 0 {
		b.jumpIfSet(a.X32Bit, "deny")
	}
	denied := append([]string(nil), AlwaysDenied...)
	if !opts.AllowNetwork {
		denied = append(denied, NetworkDenied...)
	}
	for _, name := range denied {
		nr, ok := a.nr[name]
		if !ok {
			return nil, fmt.Errorf("seccomp filter: no syscall number for %s on %s", name, a.Name)
		}
		b.jumpIf(nr, "deny")
	}
	b.jumpIf(a.nr["ioctl"], "ioctl")
	if !opts.AllowNetwork {
		b.jumpIf(a.nr["socket"], "domain")
		b.jumpIf(a.nr["socketpair"], "domain")
	}
	b.emit(bpf.RetConstant{Val: RetAllow})
	b.label("ioctl")
	b.emit(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	for _, req := range DeniedIoctls {
		b.jumpIf(req, "deny")
	}
	b.emit(bpf.RetConstant{Val: RetAllow})
	if !opts.AllowNetwork {
		b.label("domain")
		b.emit(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		b.jumpIf(afUnix, "allow")
		b.emit(bpf.RetConstant{Val: RetEPERM})
		b.label("allow")
		b.emit(bpf.RetConstant{Val: RetAllow})
	}
	b.label("deny")
	b.emit(bpf.RetConstant{Val: RetEPERM})
	return b.resolve()
}

// builder assembles forward jumps to named labels; classic BPF only jumps forward, by at most
// 255 instructions for a conditional, which this short program never approaches.
type builder struct {
	insns  []bpf.Instruction
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	target string
}

func (b *builder) emit(i bpf.Instruction) { b.insns = append(b.insns, i) }

func (b *builder) label(name string) {
	if b.labels == nil {
		b.labels = map[string]int{}
	}
	b.labels[name] = len(b.insns)
}

func (b *builder) jumpIf(val uint32, target string) {
	b.fixups = append(b.fixups, fixup{at: len(b.insns), target: target})
	b.emit(bpf.JumpIf{Cond: bpf.JumpEqual, Val: val})
}

func (b *builder) jumpIfNot(val uint32, target string) {
	b.fixups = append(b.fixups, fixup{at: len(b.insns), target: target})
	b.emit(bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: val})
}

func (b *builder) jumpIfSet(mask uint32, target string) {
	b.fixups = append(b.fixups, fixup{at: len(b.insns), target: target})
	b.emit(bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: mask})
}

func (b *builder) resolve() ([]bpf.Instruction, error) {
	for _, f := range b.fixups {
		to, ok := b.labels[f.target]
		if !ok {
			return nil, fmt.Errorf("seccomp filter: undefined label %s", f.target)
		}
		skip := to - f.at - 1
		if skip < 0 || skip > 255 {
			return nil, fmt.Errorf("seccomp filter: jump to %s out of range (%d)", f.target, skip)
		}
		j := b.insns[f.at].(bpf.JumpIf)
		j.SkipTrue = uint8(skip)
		b.insns[f.at] = j
	}
	return b.insns, nil
}
