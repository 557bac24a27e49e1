package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// attackOp is the sandboxed side of the adversarial suite (attack_linux_test.go): each
// operation tries one escape and reports the kernel's answer. Whether it worked is judged by
// the test from outside the sandbox wherever the effect can be seen from there.
func attackOp(op, arg string) (error, bool) {
	args := strings.Split(arg, ",")
	a := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch op {
	case "write":
		f, err := os.OpenFile(a(0), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err, true
		}
		defer f.Close()
		_, err = f.WriteString("escaped")
		return err, true
	case "write-value":
		return os.WriteFile(a(0), []byte(a(1)), 0), true
	case "write-path":
		// A device by its path: no truncation, no creation.
		f, err := os.OpenFile(a(0), os.O_WRONLY, 0)
		if err != nil {
			return err, true
		}
		defer f.Close()
		_, err = f.WriteString("escaped\n")
		return err, true
	case "create":
		f, err := os.OpenFile(a(0), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err, true
		}
		return f.Close(), true
	case "unlink":
		return unix.Unlink(a(0)), true
	case "rename":
		return unix.Rename(a(0), a(1)), true
	case "mkdir":
		return unix.Mkdir(a(0), 0o755), true
	case "mkdir-write":
		dir := a(0)[:strings.LastIndex(a(0), "/")]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err, true
		}
		return os.WriteFile(a(0), []byte("[core]\n\tfsmonitor = touch /tmp/pwned\n"), 0o644), true
	case "symlink":
		return unix.Symlink(a(0), a(1)), true
	case "chmod":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		return unix.Chmod(a(0), uint32(mode)), true
	case "fchmod":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		fd, err := unix.Open(a(0), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		return unix.Fchmod(fd, uint32(mode)), true
	case "fchmodat":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		return unix.Fchmodat(unix.AT_FDCWD, a(0), uint32(mode), 0), true
	case "fchmodat2":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		p, err := unix.BytePtrFromString(a(0))
		if err != nil {
			return err, true
		}
		atFDCWD := unix.AT_FDCWD
		_, _, errno := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(atFDCWD), uintptr(unsafe.Pointer(p)), uintptr(mode), 0, 0, 0)
		return errnoErr(errno), true
	case "create-mode":
		// A new file given the mode at creation: open(O_CREAT) keeps the setuid bit.
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		fd, err := unix.Open(a(0), unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, uint32(mode))
		if err == nil {
			unix.Close(fd)
		}
		return err, true
	case "mknod-mode":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		return unix.Mknod(a(0), unix.S_IFREG|uint32(mode), 0), true
	case "openat2-create":
		mode, _ := strconv.ParseUint(a(1), 8, 32)
		fd, err := unix.Openat2(unix.AT_FDCWD, a(0), &unix.OpenHow{Flags: unix.O_CREAT | unix.O_EXCL | unix.O_WRONLY | unix.O_CLOEXEC, Mode: mode})
		if err == nil {
			unix.Close(fd)
		}
		return err, true
	case "suid-mount":
		// Whether a setuid file there would count: its mount is nosuid or it is not.
		var st unix.Statfs_t
		if err := unix.Statfs(a(0), &st); err != nil {
			return err, true
		}
		if st.Flags&unix.ST_NOSUID != 0 {
			return errors.New("nosuid"), true
		}
		return nil, true
	case "read-secret":
		b, err := os.ReadFile(a(0))
		if err != nil {
			return err, true
		}
		if !strings.Contains(string(b), a(1)) {
			return fmt.Errorf("no secret in %d bytes", len(b)), true
		}
		return nil, true
	case "await":
		// Wait for the test to create a file, which is how it orders concurrent sandboxes.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(a(0)); err == nil {
				return nil, true
			}
		}
		return errors.New("timed out"), true
	case "chown":
		uid, _ := strconv.Atoi(a(1))
		gid, _ := strconv.Atoi(a(2))
		return unix.Chown(a(0), uid, gid), true
	case "utime":
		return unix.Utimes(a(0), []unix.Timeval{{Sec: 1}, {Sec: 1}}), true
	case "setxattr":
		return unix.Setxattr(a(0), "user.gocodex-attack", []byte("escaped"), 0), true
	case "chattr":
		fd, err := unix.Open(a(0), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err, true
		}
		return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|fsNoatimeFL)), true
	case "truncate":
		return unix.Truncate(a(0), 0), true
	case "symlink-write":
		if err := unix.Symlink(a(0), a(1)); err != nil {
			return err, true
		}
		return attackOp("write", a(1))
	case "link-write":
		if err := unix.Link(a(0), a(1)); err != nil {
			return err, true
		}
		return attackOp("write", a(1))
	case "reopen-write":
		// A read-only descriptor reopened for writing through its /proc/self/fd link.
		f, err := os.Open(a(0))
		if err != nil {
			return err, true
		}
		defer f.Close()
		return attackOp("write", fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	case "mknod-block":
		return unix.Mknod(a(0), unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))), true
	case "mount-setattr-ro":
		return unix.MountSetattr(unix.AT_FDCWD, a(0), 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}), true
	case "sethostname":
		return unix.Sethostname([]byte(a(0))), true
	case "add-key":
		_, err := unix.AddKey("user", a(0), []byte("escaped"), unix.KEY_SPEC_USER_KEYRING)
		return err, true
	case "bpf":
		// BPF_MAP_CREATE of a one-entry array map.
		attr := [5]uint32{2, 4, 4, 1, 0}
		fd, _, errno := unix.Syscall(unix.SYS_BPF, 0, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
		if errno == 0 {
			unix.Close(int(fd))
		}
		return errnoErr(errno), true
	case "perf":
		// A system-wide (pid -1, cpu 0) software event: needs CAP_PERFMON.
		attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CPU_CLOCK, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{}))}
		fd, err := unix.PerfEventOpen(&attr, -1, 0, -1, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err, true
	case "userfaultfd":
		fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC, 0, 0)
		if errno == 0 {
			unix.Close(int(fd))
		}
		return errnoErr(errno), true
	case "io_uring":
		var params [120]byte
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno == 0 {
			unix.Close(int(fd))
		}
		return errnoErr(errno), true
	case "kill":
		pid, _ := strconv.Atoi(a(0))
		return unix.Kill(pid, unix.SIGKILL), true
	case "renice":
		pid, _ := strconv.Atoi(a(0))
		return unix.Setpriority(unix.PRIO_PROCESS, pid, 19), true
	case "ptrace-attach":
		pid, _ := strconv.Atoi(a(0))
		_, _, errno := unix.RawSyscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(pid), 0, 0, 0, 0)
		return errnoErr(errno), true
	case "vm-write":
		// Permission is checked before the (invalid) remote address: EFAULT means allowed.
		pid, _ := strconv.Atoi(a(0))
		b := []byte("x")
		local := []unix.Iovec{{Base: &b[0], Len: 1}}
		remote := []unix.RemoteIovec{{Base: 1, Len: 1}}
		_, err := unix.ProcessVMWritev(pid, local, remote, 0)
		if errors.Is(err, unix.EFAULT) {
			return nil, true
		}
		return err, true
	case "hold":
		// Long enough for the test to find it in /proc from outside, even under -race.
		time.Sleep(1500 * time.Millisecond)
		return nil, true
	case "daemon":
		exe, err := os.Executable()
		if err != nil {
			return err, true
		}
		cmd := exec.Command(exe, toolArg, "hold="+a(0))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return cmd.Start(), true
	case "tiocsti":
		return tiocsti(0), true
	case "tiocsti-tty":
		fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		return tiocsti(fd), true
	case "tiocsti-path":
		fd, err := unix.Open(a(0), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		return tiocsti(fd), true
	case "pidfd-kill":
		pid, _ := strconv.Atoi(a(0))
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0), true
	case "listen":
		ln, err := net.Listen("tcp4", a(0))
		if err == nil {
			ln.Close()
		}
		return err, true
	case "udp6-send":
		c, err := net.Dial("udp6", a(0))
		if err != nil {
			return err, true
		}
		defer c.Close()
		_, err = c.Write([]byte("x"))
		return err, true
	case "tcp6-connect":
		c, err := net.DialTimeout("tcp6", a(0), time.Second)
		if err == nil {
			c.Close()
		}
		return err, true
	case "abstract-send", "unix-send":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		name := a(0)
		if op == "abstract-send" {
			name = "@" + name
		}
		return unix.Sendmsg(fd, []byte("escaped"), nil, &unix.SockaddrUnix{Name: name}, 0), true
	case "unix-send-pair", "unix-send-raw", "unix-sendto":
		// Other ways to a datagram with an address: a connected datagram socketpair still
		// sends wherever sendmsg names, AF_UNIX SOCK_RAW is a datagram socket, and sendto
		// takes an address as sendmsg does.
		var fd int
		switch op {
		case "unix-send-pair":
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
			if err != nil {
				return err, true
			}
			defer unix.Close(fds[1])
			fd = fds[0]
		case "unix-send-raw":
			var err error
			if fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_RAW, 0); err != nil {
				return err, true
			}
		default:
			var err error
			if fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err != nil {
				return err, true
			}
			defer unix.Close(fd)
			return unix.Sendto(fd, []byte("escaped"), 0, &unix.SockaddrUnix{Name: a(0)}), true
		}
		defer unix.Close(fd)
		return unix.Sendmsg(fd, []byte("escaped"), nil, &unix.SockaddrUnix{Name: a(0)}, 0), true
	case "abstract-connect", "unix-connect":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err, true
		}
		defer unix.Close(fd)
		name := a(0)
		if op == "abstract-connect" {
			name = "@" + name
		}
		return unix.Connect(fd, &unix.SockaddrUnix{Name: name}), true
	case "socket":
		family := map[string][3]int{
			"netlink":   {unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE},
			"packet":    {unix.AF_PACKET, unix.SOCK_RAW, 0},
			"inet-raw":  {unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP},
			"vsock":     {unix.AF_VSOCK, unix.SOCK_STREAM, 0},
			"bluetooth": {unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0},
			"alg":       {unix.AF_ALG, unix.SOCK_SEQPACKET, 0},
		}[a(0)]
		fd, err := unix.Socket(family[0], family[1], family[2])
		if err == nil {
			unix.Close(fd)
		}
		return err, true
	case "caps":
		// Capabilities left in any set (effective, permitted, inheritable, bounding, ambient).
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return err, true
		}
		return capsLeft(string(data)), true
	case "setsid-check":
		// A session of its own: no controlling terminal shared with the person's shell.
		if sid, _ := unix.Getsid(0); sid != os.Getpid() {
			return fmt.Errorf("session=%d", sid), true
		}
		return nil, true
	}
	return nil, false
}

// capsLeft returns an error naming the first non-empty capability set in a /proc status.
func capsLeft(status string) error {
	for _, l := range strings.Split(status, "\n") {
		k, v, _ := strings.Cut(l, ":")
		if strings.HasPrefix(k, "Cap") && strings.Trim(strings.TrimSpace(v), "0") != "" {
			return fmt.Errorf("%s=%s", k, strings.TrimSpace(v))
		}
	}
	return nil
}

func tiocsti(fd int) error {
	c := byte('Z')
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	return errnoErr(errno)
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// fsNoatimeFL is FS_NOATIME_FL (linux/fs.h), a flag the file's owner may set with chattr.
const fsNoatimeFL = 0x80
