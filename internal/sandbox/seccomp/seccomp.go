// Package seccomp builds and installs the classic-BPF seccomp filter the sandbox helper puts
// in front of every confined command: no ptrace, no io_uring (whose submissions bypass a
// syscall filter entirely), no kernel keyrings (shared by every process of the user), no
// terminal-injection ioctls (TIOCSTI, TIOCLINUX: they type into the terminal the command shares
// with the person's shell), no setuid or setgid bit set by chmod or given to a new file, and,
// unless the policy allows the network, no socket other than AF_UNIX, none of the calls that
// would use one, and no datagram to an address. The program is plain data so that tests can
// run it on synthetic seccomp_data in golang.org/x/net/bpf's VM without a kernel.
package seccomp

import (
	"fmt"
	"slices"

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
	// RetENOSYS answers openat2, whose mode sits in a structure the filter cannot read:
	// programs take it for an older kernel and fall back to openat, which the filter checks.
	RetENOSYS = retErrno | 38

	afUnix = 1
	// The AF_UNIX socket types that never take a destination address (linux/net.h); the type
	// argument carries SOCK_NONBLOCK and SOCK_CLOEXEC above sockTypeMask.
	sockStream    = 1
	sockSeqpacket = 5
	sockTypeMask  = 0xf

	// SetIDBits are S_ISUID and S_ISGID: a mode carrying either is refused.
	SetIDBits = 0o6000
	// createFlags are O_CREAT and __O_TMPFILE (the same on amd64 and arm64): only with one of
	// them does open's mode argument mean anything.
	createFlags = 0o100 | 0o20000000
)

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at offArgs+8*i, its low 32 bits first on the little-endian
	// architectures we support. Modes, flags, socket domains and types and ioctl requests are
	// 32-bit in the kernel, which ignores the high bits, so the filter reads only the low word;
	// a pointer is read whole.
)

// argLow is the offset of the low 32 bits of args[i].
func argLow(i int) uint32 { return uint32(offArgs + 8*i) }

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
		"open": 2, "creat": 85, "chmod": 90, "fchmod": 91, "mknod": 133, "openat": 257,
		"mknodat": 259, "fchmodat": 268, "openat2": 437, "fchmodat2": 452,
	}}
	ARM64 = Arch{Name: "arm64", AuditArch: auditArchAArch64, nr: map[string]uint32{
		"ptrace": 117, "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202,
		"connect": 203, "getsockname": 204, "getpeername": 205, "sendto": 206, "setsockopt": 208,
		"getsockopt": 209, "shutdown": 210, "accept4": 242, "recvmmsg": 243, "sendmmsg": 269,
		"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
		"ioctl": 29, "add_key": 217, "request_key": 218, "keyctl": 219,
		"mknodat": 33, "fchmod": 52, "fchmodat": 53, "openat": 56, "openat2": 437, "fchmodat2": 452,
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

// ModeArgs names, per call, the argument holding a mode the filter refuses when it carries a
// setuid or setgid bit: the chmod family and the calls that create a file with a mode (a
// call the architecture lacks, like chmod on arm64, is skipped).
var ModeArgs = map[string]int{
	"chmod": 1, "fchmod": 1, "fchmodat": 2, "fchmodat2": 2, "creat": 1, "mknod": 1, "mknodat": 2,
}

// OpenArgs names, per open call, the arguments holding its flags and its mode, which counts
// only when the flags create a file.
var OpenArgs = map[string][2]int{"open": {1, 2}, "openat": {2, 3}}

// NetworkDenied are refused when the policy restricts the network. sendmsg and recvmsg stay
// allowed: without an IP socket or an AF_UNIX datagram socket they can only reach the peer of
// a connected AF_UNIX socket (a socketpair), and fd passing needs them; sendto is allowed
// without a destination address for the same reason.
var NetworkDenied = []string{
	"connect", "accept", "accept4", "bind", "listen", "getpeername", "getsockname",
	"shutdown", "sendmmsg", "recvmmsg", "getsockopt", "setsockopt",
}

// Options chooses what the filter lets through.
type Options struct {
	AllowNetwork bool
	// AllowUnixDatagrams lets AF_UNIX datagram sockets be created while the network is
	// restricted: set only when Landlock (ABI 9, LANDLOCK_ACCESS_FS_RESOLVE_UNIX) already keeps
	// every pathname socket outside the writable roots out of reach. Otherwise socket and
	// socketpair accept only SOCK_STREAM and SOCK_SEQPACKET, which send to their connected
	// peer alone (an AF_UNIX SOCK_RAW is a datagram socket too), so no sendmsg can name a
	// socket outside.
	AllowUnixDatagrams bool
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
	for _, name := range sortedKeys(ModeArgs) {
		if nr, ok := a.nr[name]; ok {
			b.jumpIf(nr, fmt.Sprintf("mode%d", ModeArgs[name]))
		}
	}
	for _, name := range sortedKeys(OpenArgs) {
		if nr, ok := a.nr[name]; ok {
			b.jumpIf(nr, fmt.Sprintf("open%d", OpenArgs[name][0]))
		}
	}
	b.jumpIf(a.nr["openat2"], "enosys")
	if !opts.AllowNetwork {
		b.jumpIf(a.nr["socket"], "socket")
		b.jumpIf(a.nr["socketpair"], "socket")
		b.jumpIf(a.nr["sendto"], "sendto")
	}
	b.emit(bpf.RetConstant{Val: RetAllow})

	b.label("ioctl")
	b.emit(bpf.LoadAbsolute{Off: argLow(1), Size: 4})
	for _, req := range DeniedIoctls {
		b.jumpIf(req, "deny")
	}
	b.emit(bpf.RetConstant{Val: RetAllow})

	// open's flags then, when they create, its mode; the mode checks follow in argument
	// order, since classic BPF only jumps forward.
	for _, flagsArg := range []int{1, 2} {
		b.label(fmt.Sprintf("open%d", flagsArg))
		b.emit(bpf.LoadAbsolute{Off: argLow(flagsArg), Size: 4})
		b.jumpIfSet(createFlags, fmt.Sprintf("mode%d", flagsArg+1))
		b.emit(bpf.RetConstant{Val: RetAllow})
	}
	for _, modeArg := range []int{1, 2, 3} {
		b.label(fmt.Sprintf("mode%d", modeArg))
		b.emit(bpf.LoadAbsolute{Off: argLow(modeArg), Size: 4})
		b.jumpIfSet(SetIDBits, "deny")
		b.emit(bpf.RetConstant{Val: RetAllow})
	}
	b.label("enosys")
	b.emit(bpf.RetConstant{Val: RetENOSYS})

	if !opts.AllowNetwork {
		b.label("socket")
		b.emit(bpf.LoadAbsolute{Off: argLow(0), Size: 4})
		b.jumpIfNot(afUnix, "deny")
		if !opts.AllowUnixDatagrams {
			b.emit(bpf.LoadAbsolute{Off: argLow(1), Size: 4})
			b.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask})
			b.jumpIf(sockStream, "allow")
			b.jumpIfNot(sockSeqpacket, "deny")
		}
		b.label("allow")
		b.emit(bpf.RetConstant{Val: RetAllow})
		// sendto's destination address (args[4]) must be NULL: both halves of the pointer.
		b.label("sendto")
		b.emit(bpf.LoadAbsolute{Off: argLow(4), Size: 4})
		b.jumpIfNot(0, "deny")
		b.emit(bpf.LoadAbsolute{Off: argLow(4) + 4, Size: 4})
		b.jumpIfNot(0, "deny")
		b.emit(bpf.RetConstant{Val: RetAllow})
	}
	b.label("deny")
	b.emit(bpf.RetConstant{Val: RetEPERM})
	return b.resolve()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
