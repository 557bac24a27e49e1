//go:build linux

package seccomp

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData encodes struct seccomp_data for x/net/bpf's VM. The VM loads words big-endian
// (network order) while the kernel loads them native-endian, so each 32-bit word is written
// big-endian here and a 64-bit argument is split into its low word first, as it sits in memory
// on a little-endian machine.
func seccompData(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		off := 16 + 8*i
		binary.BigEndian.PutUint32(b[off:], uint32(a))
		binary.BigEndian.PutUint32(b[off+4:], uint32(a>>32))
	}
	return b
}

func run(t *testing.T, insns []bpf.Instruction, data []byte) uint32 {
	t.Helper()
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatalf("NewVM: %v", err)
	}
	out, err := vm.Run(data)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return uint32(out)
}

func TestProgram(t *testing.T) {
	const x32 = 0x40000000
	nr := func(name string) func(Arch) uint32 {
		return func(a Arch) uint32 { n, _ := a.Nr(name); return n }
	}
	cases := []struct {
		name         string
		syscall      string
		nrOverride   func(Arch) uint32
		archOverride uint32
		args         []uint64
		allowNet     bool
		want         uint32
		amd64Only    bool
	}{
		{name: "read allowed", nrOverride: func(a Arch) uint32 { return 0 }, want: RetAllow},
		{name: "openat allowed", nrOverride: func(a Arch) uint32 { return 257 }, want: RetAllow},
		{name: "sendmsg allowed", nrOverride: func(a Arch) uint32 {
			if a.Name == "amd64" {
				return 46
			}
			return 211
		}, want: RetAllow},
		{name: "ptrace denied", syscall: "ptrace", want: RetEPERM},
		{name: "ptrace denied with network", syscall: "ptrace", allowNet: true, want: RetEPERM},
		{name: "io_uring_setup denied", syscall: "io_uring_setup", allowNet: true, want: RetEPERM},
		{name: "io_uring_enter denied", syscall: "io_uring_enter", want: RetEPERM},
		{name: "io_uring_register denied", syscall: "io_uring_register", want: RetEPERM},
		{name: "connect denied", syscall: "connect", want: RetEPERM},
		{name: "connect allowed with network", syscall: "connect", allowNet: true, want: RetAllow},
		{name: "setsockopt denied", syscall: "setsockopt", want: RetEPERM},
		{name: "recvmmsg denied", syscall: "recvmmsg", want: RetEPERM},
		{name: "socket AF_UNIX allowed", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, want: RetAllow},
		{name: "socket AF_INET denied", syscall: "socket", args: []uint64{unix.AF_INET, unix.SOCK_STREAM}, want: RetEPERM},
		{name: "socket AF_INET6 denied", syscall: "socket", args: []uint64{unix.AF_INET6, unix.SOCK_DGRAM}, want: RetEPERM},
		{name: "socket AF_NETLINK denied", syscall: "socket", args: []uint64{unix.AF_NETLINK, unix.SOCK_RAW}, want: RetEPERM},
		{name: "socket AF_INET allowed with network", syscall: "socket", args: []uint64{unix.AF_INET}, allowNet: true, want: RetAllow},
		{name: "socketpair AF_UNIX SOCK_STREAM allowed", syscall: "socketpair", args: []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, want: RetAllow},
		{name: "socketpair AF_INET denied", syscall: "socketpair", args: []uint64{unix.AF_INET}, want: RetEPERM},
		{name: "socket AF_UNIX with junk high bits allowed", syscall: "socket", args: []uint64{1<<40 | unix.AF_UNIX, unix.SOCK_STREAM}, want: RetAllow},
		{name: "ioctl TIOCSTI denied", syscall: "ioctl", args: []uint64{0, TIOCSTI}, allowNet: true, want: RetEPERM},
		{name: "ioctl TIOCSTI with junk high bits denied", syscall: "ioctl", args: []uint64{0, 1<<32 | TIOCSTI}, want: RetEPERM},
		{name: "ioctl TIOCLINUX denied", syscall: "ioctl", args: []uint64{0, TIOCLINUX}, want: RetEPERM},
		{name: "ioctl TIOCGWINSZ allowed", syscall: "ioctl", args: []uint64{1, unix.TIOCGWINSZ}, want: RetAllow},
		{name: "ioctl TCGETS allowed", syscall: "ioctl", args: []uint64{0, unix.TCGETS}, allowNet: true, want: RetAllow},
		{name: "keyctl denied", syscall: "keyctl", allowNet: true, want: RetEPERM},
		{name: "add_key denied", syscall: "add_key", want: RetEPERM},
		{name: "request_key denied", syscall: "request_key", want: RetEPERM},
		{name: "foreign arch denied", nrOverride: func(a Arch) uint32 { return 0 }, archOverride: 0x40000003, want: RetEPERM},
		{name: "foreign arch denied even with network", nrOverride: func(a Arch) uint32 { return 0 }, archOverride: 0x40000003, allowNet: true, want: RetEPERM},
		{name: "x32 read denied", nrOverride: func(a Arch) uint32 { return x32 | 0 }, want: RetEPERM, amd64Only: true},
		{name: "x32 socket denied even with network", nrOverride: func(a Arch) uint32 { return x32 | 41 }, allowNet: true, want: RetEPERM, amd64Only: true},

		// setuid and setgid bits.
		{name: "chmod 0755 allowed", syscall: "chmod", args: []uint64{0, 0o755}, want: RetAllow, amd64Only: true},
		{name: "chmod 04755 denied", syscall: "chmod", args: []uint64{0, 0o4755}, allowNet: true, want: RetEPERM, amd64Only: true},
		{name: "chmod 02755 denied", syscall: "chmod", args: []uint64{0, 0o2755}, want: RetEPERM, amd64Only: true},
		{name: "chmod 01777 (sticky) allowed", syscall: "chmod", args: []uint64{0, 0o1777}, want: RetAllow, amd64Only: true},
		{name: "fchmod 0644 allowed", syscall: "fchmod", args: []uint64{3, 0o644}, want: RetAllow},
		{name: "fchmod 04755 denied", syscall: "fchmod", args: []uint64{3, 0o4755}, allowNet: true, want: RetEPERM},
		{name: "fchmod 06755 with junk high bits denied", syscall: "fchmod", args: []uint64{3, 1<<40 | 0o6755}, want: RetEPERM},
		{name: "fchmodat 0700 allowed", syscall: "fchmodat", args: []uint64{atFDCWD, 0, 0o700}, want: RetAllow},
		{name: "fchmodat 02700 denied", syscall: "fchmodat", args: []uint64{atFDCWD, 0, 0o2700}, want: RetEPERM},
		{name: "fchmodat a setuid-looking path pointer allowed", syscall: "fchmodat", args: []uint64{atFDCWD, 0o4000, 0o755}, want: RetAllow},
		{name: "fchmodat2 04700 denied", syscall: "fchmodat2", args: []uint64{atFDCWD, 0, 0o4700, unix.AT_SYMLINK_NOFOLLOW}, want: RetEPERM},
		{name: "creat 04755 denied", syscall: "creat", args: []uint64{0, 0o4755}, want: RetEPERM, amd64Only: true},
		{name: "mknod regular 04755 denied", syscall: "mknod", args: []uint64{0, unix.S_IFREG | 0o4755}, want: RetEPERM, amd64Only: true},
		{name: "mknodat fifo 0644 allowed", syscall: "mknodat", args: []uint64{atFDCWD, 0, unix.S_IFIFO | 0o644}, want: RetAllow},
		{name: "mknodat regular 02755 denied", syscall: "mknodat", args: []uint64{atFDCWD, 0, unix.S_IFREG | 0o2755}, want: RetEPERM},
		{name: "open O_CREAT 0644 allowed", syscall: "open", args: []uint64{0, unix.O_CREAT | unix.O_WRONLY, 0o644}, want: RetAllow, amd64Only: true},
		{name: "open O_CREAT 04755 denied", syscall: "open", args: []uint64{0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, want: RetEPERM, amd64Only: true},
		{name: "open without O_CREAT ignores a stray mode", syscall: "open", args: []uint64{0, unix.O_RDONLY, 0o4755}, want: RetAllow, amd64Only: true},
		{name: "openat O_CREAT 0600 allowed", syscall: "openat", args: []uint64{atFDCWD, 0, unix.O_CREAT | unix.O_RDWR, 0o600}, want: RetAllow},
		{name: "openat O_CREAT 04755 denied", syscall: "openat", args: []uint64{atFDCWD, 0, unix.O_CREAT | unix.O_RDWR | unix.O_CLOEXEC, 0o4755}, allowNet: true, want: RetEPERM},
		{name: "openat O_TMPFILE 02755 denied", syscall: "openat", args: []uint64{atFDCWD, 0, unix.O_TMPFILE | unix.O_RDWR, 0o2755}, want: RetEPERM},
		{name: "openat read-only ignores a stray mode", syscall: "openat", args: []uint64{atFDCWD, 0, unix.O_RDONLY, 0o6777}, want: RetAllow},
		{name: "openat2 answers ENOSYS", syscall: "openat2", allowNet: true, want: RetENOSYS},

		// AF_UNIX datagrams and addressed sends with the network restricted.
		{name: "socket AF_UNIX SOCK_STREAM|SOCK_CLOEXEC allowed", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC | unix.SOCK_NONBLOCK}, want: RetAllow},
		{name: "socket AF_UNIX SOCK_SEQPACKET allowed", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET}, want: RetAllow},
		{name: "socket AF_UNIX SOCK_DGRAM denied", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, want: RetEPERM},
		{name: "socket AF_UNIX SOCK_DGRAM|SOCK_CLOEXEC denied", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, want: RetEPERM},
		{name: "socket AF_UNIX SOCK_RAW (a datagram socket) denied", syscall: "socket", args: []uint64{unix.AF_UNIX, unix.SOCK_RAW}, want: RetEPERM},
		{name: "socketpair AF_UNIX SOCK_DGRAM denied", syscall: "socketpair", args: []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, want: RetEPERM},
		{name: "socketpair AF_UNIX SOCK_DGRAM allowed with network", syscall: "socketpair", args: []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, allowNet: true, want: RetAllow},
		{name: "sendto without an address allowed", syscall: "sendto", args: []uint64{3, 0x1000, 1, 0, 0, 0}, want: RetAllow},
		{name: "sendto with an address denied", syscall: "sendto", args: []uint64{3, 0x1000, 1, 0, 0x7ffd0000, 110}, want: RetEPERM},
		{name: "sendto with an address above 4 GiB denied", syscall: "sendto", args: []uint64{3, 0x1000, 1, 0, 0x7ffd_0000_0000, 110}, want: RetEPERM},
		{name: "sendto with an address allowed with network", syscall: "sendto", args: []uint64{3, 0x1000, 1, 0, 0x7ffd0000, 16}, allowNet: true, want: RetAllow},
	}
	for _, arch := range []Arch{AMD64, ARM64} {
		allow, err := Program(arch, Options{AllowNetwork: true})
		if err != nil {
			t.Fatal(err)
		}
		deny, err := Program(arch, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			if tc.amd64Only && arch.Name != "amd64" {
				continue
			}
			t.Run(arch.Name+"/"+tc.name, func(t *testing.T) {
				n := nr(tc.syscall)(arch)
				if tc.nrOverride != nil {
					n = tc.nrOverride(arch)
				}
				a := arch.AuditArch
				if tc.archOverride != 0 {
					a = tc.archOverride
				}
				prog := deny
				if tc.allowNet {
					prog = allow
				}
				if got := run(t, prog, seccompData(a, n, tc.args...)); got != tc.want {
					t.Errorf("got %#x, want %#x", got, tc.want)
				}
			})
		}
	}
}

// TestNativeTable pins the hand-written syscall table against x/sys/unix for the running arch.
func TestNativeTable(t *testing.T) {
	arch, err := Native()
	if err != nil {
		t.Skip(err)
	}
	want := map[string]uint32{
		"socket": unix.SYS_SOCKET, "socketpair": unix.SYS_SOCKETPAIR, "connect": unix.SYS_CONNECT,
		"accept": unix.SYS_ACCEPT, "accept4": unix.SYS_ACCEPT4, "bind": unix.SYS_BIND,
		"listen": unix.SYS_LISTEN, "getpeername": unix.SYS_GETPEERNAME, "getsockname": unix.SYS_GETSOCKNAME,
		"shutdown": unix.SYS_SHUTDOWN, "sendto": unix.SYS_SENDTO, "sendmmsg": unix.SYS_SENDMMSG,
		"recvmmsg": unix.SYS_RECVMMSG, "getsockopt": unix.SYS_GETSOCKOPT, "setsockopt": unix.SYS_SETSOCKOPT,
		"ptrace": unix.SYS_PTRACE, "io_uring_setup": unix.SYS_IO_URING_SETUP,
		"io_uring_enter": unix.SYS_IO_URING_ENTER, "io_uring_register": unix.SYS_IO_URING_REGISTER,
		"ioctl": unix.SYS_IOCTL, "add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY,
		"keyctl": unix.SYS_KEYCTL, "fchmod": unix.SYS_FCHMOD, "fchmodat": unix.SYS_FCHMODAT,
		"fchmodat2": unix.SYS_FCHMODAT2, "openat": unix.SYS_OPENAT, "mknodat": unix.SYS_MKNODAT,
		"openat2": unix.SYS_OPENAT2,
	}
	for name, nr := range nativeOnly() {
		want[name] = nr
	}
	if TIOCSTI != unix.TIOCSTI || TIOCLINUX != unix.TIOCLINUX {
		t.Errorf("terminal ioctl numbers differ from x/sys/unix")
	}
	for name, nr := range want {
		if got, ok := arch.Nr(name); !ok || got != nr {
			t.Errorf("%s/%s = %d, want %d", runtime.GOARCH, name, got, nr)
		}
	}
	if arch.AuditArch != map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH] {
		t.Errorf("audit arch %#x wrong for %s", arch.AuditArch, runtime.GOARCH)
	}
}

func TestProgramAssembles(t *testing.T) {
	for _, arch := range []Arch{AMD64, ARM64} {
		for _, opts := range []Options{{}, {AllowNetwork: true}, {AllowUnixDatagrams: true}} {
			insns, err := Program(arch, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bpf.Assemble(insns); err != nil {
				t.Errorf("%s %+v: %v", arch.Name, opts, err)
			}
		}
	}
}

// TestUnixDatagramsWithLandlock: where Landlock keeps pathname sockets outside the roots out
// of reach, datagram sockets stay available; other families stay refused.
func TestUnixDatagramsWithLandlock(t *testing.T) {
	for _, arch := range []Arch{AMD64, ARM64} {
		prog, err := Program(arch, Options{AllowUnixDatagrams: true})
		if err != nil {
			t.Fatal(err)
		}
		socket, _ := arch.Nr("socket")
		socketpair, _ := arch.Nr("socketpair")
		for _, tc := range []struct {
			nr   uint32
			args []uint64
			want uint32
		}{
			{socket, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, RetAllow},
			{socketpair, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, RetAllow},
			{socket, []uint64{unix.AF_INET, unix.SOCK_DGRAM}, RetEPERM},
		} {
			if got := run(t, prog, seccompData(arch.AuditArch, tc.nr, tc.args...)); got != tc.want {
				t.Errorf("%s nr %d %v: got %#x, want %#x", arch.Name, tc.nr, tc.args, got, tc.want)
			}
		}
	}
}

// atFDCWD is AT_FDCWD (-100) as the 64-bit register value the kernel hands the filter.
const atFDCWD = ^uint64(99)
