package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/protocol"
)

// The adversarial suite: escape attempts from inside the sandbox, each judged from outside it
// (canary contents and metadata, listeners, victim processes, a terminal's input queue, the
// host name, the keyring, mount flags) wherever the effect can be seen from there, and by the
// kernel's answer where it cannot (bpf, perf, userfaultfd, io_uring, sockets of other
// families). It runs under each mechanism this machine has and, where the reference binary is
// installed, under Codex 0.169's own sandbox (`codex sandbox`); it logs blocked/escaped per
// attempt, and fails when the strongest mechanism lets through anything Codex blocks or
// anything not listed in acceptedEscapes. It runs as root and, through TestAttacksUnprivileged,
// again as nobody.
//
//	go test -run 'TestAttacks' -v ./internal/sandbox/
//	go test -run 'TestAttacks$' ./internal/sandbox/ -record-codex-attacks   # refresh the recording

var recordCodexAttacks = flag.Bool("record-codex-attacks", false, "record Codex 0.169's verdicts into testdata/codex_attacks.json")

const codexAttacksFile = "testdata/codex_attacks.json"

// acceptedEscapes are the attempts the strongest mechanism is known to let through, with why.
// Each is also let through by Codex 0.169 (the test checks that against its verdicts).
var acceptedEscapes = map[string]string{}

// attempt is one escape. try returns whether it escaped.
type attempt struct {
	name  string
	class string
	// mustBlock says which mechanisms are meant to stop it; nil means every one.
	mustBlock func(m Mechanism, abi int) bool
	// root marks attempts whose set-up needs root.
	root bool
	try  func(e *attackEnv) bool
}

func withNamespaces(m Mechanism, _ int) bool { return m.usesNamespaces() }

// scopedOrNamespaces is for what Landlock's scoping (ABI 6) or the PID/network namespaces stop.
func scopedOrNamespaces(m Mechanism, abi int) bool {
	return m.usesNamespaces() || (m.usesLandlock() && abi >= landlockScopeABI)
}

// attackRunner starts the test tool's operations under one sandbox.
type attackRunner struct {
	name      string
	mechanism Mechanism
	// argv is the command a process runs to start the ops sandboxed in cwd; for gocodex it
	// goes through the test binary's --sandbox-test-shell, which calls Command.
	argv func(cwd string, ops ...string) []string
	env  []string
	// codexHome is the CODEX_HOME the runner's sandbox is started with, holding credentials.
	codexHome string
}

// attackEnv is one attempt's world: a workspace with a .git, a bare workspace, and a
// directory outside every writable root holding a canary file.
type attackEnv struct {
	t       *testing.T
	r       attackRunner
	cwd     string
	bare    string
	outside string
	canary  string
	before  canaryState
}

func (e *attackEnv) run(ops ...string) string { return e.runIn(e.cwd, nil, ops...) }

func (e *attackEnv) runIn(cwd string, stdin *os.File, ops ...string) string {
	e.t.Helper()
	argv := e.r.argv(cwd, ops...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = cwd, e.r.env, stdin
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("start %v: %v", argv, err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		e.t.Errorf("%s: %v did not end", e.r.name, ops)
	}
	return out.String()
}

type canaryState struct {
	content string
	stat    unix.Stat_t
	xattrs  string
	flags   uint32
	exists  bool
}

func readCanary(path string) canaryState {
	var s canaryState
	if err := unix.Lstat(path, &s.stat); err != nil {
		return s
	}
	s.exists = true
	b, _ := os.ReadFile(path)
	s.content = string(b)
	buf := make([]byte, 1024)
	if n, err := unix.Llistxattr(path, buf); err == nil {
		s.xattrs = string(buf[:n])
	}
	if fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		s.flags, _ = unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		unix.Close(fd)
	}
	return s
}

// canaryChanged compares everything about the canary: contents, mode, owner, times, xattrs
// and flags.
func (e *attackEnv) canaryChanged() bool {
	now := readCanary(e.canary)
	b, n := e.before, now
	return b.exists != n.exists || b.content != n.content || b.stat.Mode != n.stat.Mode ||
		b.stat.Uid != n.stat.Uid || b.stat.Gid != n.stat.Gid || b.stat.Mtim != n.stat.Mtim ||
		b.stat.Ctim != n.stat.Ctim || b.stat.Size != n.stat.Size || b.xattrs != n.xattrs || b.flags != n.flags
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// victim starts a process outside the sandbox for the attempts that target one.
func victim(t *testing.T) *exec.Cmd {
	v := exec.Command("sleep", "60")
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Process.Kill(); _ = v.Wait() })
	return v
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// marked lists the processes whose command line carries marker, as seen from outside.
func marked(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(b, []byte(marker)) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func uniq(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano())
}

// kernelSays judges an attempt whose effect cannot be seen from outside by the kernel's
// answer inside: the tool prints "op ok" when the call succeeded.
func kernelSays(op string) func(e *attackEnv) bool {
	return func(e *attackEnv) bool {
		name, _, _ := strings.Cut(op, "=")
		return strings.Contains(e.run(op), name+" ok")
	}
}

func canaryAttempt(name string, ops func(e *attackEnv) []string) attempt {
	return attempt{name: name, class: "metadata", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
		e.run(ops(e)...)
		return e.canaryChanged()
	}}
}

func fileAttempt(name string, ops func(e *attackEnv) []string) attempt {
	a := canaryAttempt(name, ops)
	a.class, a.mustBlock = "files", nil
	return a
}

// protectedAttempt creates path (relative to the bare workspace) and escapes when it is there
// afterwards.
func protectedAttempt(name, rel string) attempt {
	return attempt{name: name, class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
		e.runIn(e.bare, nil, "mkdir-write="+filepath.Join(e.bare, rel))
		return exists(filepath.Join(e.bare, rel))
	}}
}

func attempts() []attempt {
	rel := func(e *attackEnv) string { return filepath.Join("..", filepath.Base(e.outside), "canary") }
	return append([]attempt{
		// Files outside the writable roots.
		fileAttempt("write a file outside the roots", func(e *attackEnv) []string { return []string{"write=" + e.canary} }),
		fileAttempt("truncate a file outside", func(e *attackEnv) []string { return []string{"truncate=" + e.canary} }),
		fileAttempt("delete a file outside", func(e *attackEnv) []string { return []string{"unlink=" + e.canary} }),
		fileAttempt("rename a file outside", func(e *attackEnv) []string {
			return []string{"rename=" + e.canary + "," + filepath.Join(e.outside, "moved")}
		}),
		fileAttempt("move a file from outside into the workspace", func(e *attackEnv) []string {
			return []string{"rename=" + e.canary + "," + filepath.Join(e.cwd, "stolen")}
		}),
		{name: "write through /proc/PID/root of a process outside", class: "files", try: func(e *attackEnv) bool {
			v := victim(e.t)
			e.run(fmt.Sprintf("write=/proc/%d/root%s", v.Process.Pid, e.canary))
			return e.canaryChanged()
		}},
		{name: "create a file outside", class: "files", try: func(e *attackEnv) bool {
			p := filepath.Join(e.outside, "created")
			e.run("create=" + p)
			return exists(p)
		}},
		fileAttempt("write through a symlink in the workspace", func(e *attackEnv) []string {
			return []string{"symlink-write=" + e.canary + "," + filepath.Join(e.cwd, "link")}
		}),
		fileAttempt("hard-link a file outside into the workspace and write it", func(e *attackEnv) []string {
			return []string{"link-write=" + e.canary + "," + filepath.Join(e.cwd, "hardlink")}
		}),
		fileAttempt("write through .. out of the workspace", func(e *attackEnv) []string { return []string{"write=" + rel(e)} }),
		fileAttempt("write through /proc/self/root", func(e *attackEnv) []string { return []string{"write=/proc/self/root" + e.canary} }),
		fileAttempt("write through /proc/self/cwd/..", func(e *attackEnv) []string {
			return []string{"write=/proc/self/cwd/" + rel(e)}
		}),
		fileAttempt("reopen a read-only descriptor for writing via /proc/self/fd", func(e *attackEnv) []string {
			return []string{"reopen-write=" + e.canary}
		}),
		{name: "create a file in the host's /dev/shm", class: "files", try: func(e *attackEnv) bool {
			p := "/dev/shm/" + uniq("gocodex-attack")
			defer os.Remove(p)
			e.run("create=" + p)
			return exists(p)
		}},
		{name: "write a host sysctl (/proc/sys/kernel/domainname)", class: "files", try: func(e *attackEnv) bool {
			const p = "/proc/sys/kernel/domainname"
			orig, err := os.ReadFile(p)
			if err != nil {
				e.t.Skip(err)
			}
			e.run("write-value=" + p + ",gocodex-attack")
			now, _ := os.ReadFile(p)
			if !bytes.Equal(now, orig) {
				_ = os.WriteFile(p, bytes.TrimSpace(orig), 0)
				return true
			}
			return false
		}},
		{name: "create a cgroup", class: "files", root: true, try: func(e *attackEnv) bool {
			p := "/sys/fs/cgroup/" + uniq("gocodex-attack")
			e.run("mkdir=" + p)
			if exists(p) {
				_ = os.Remove(p)
				return true
			}
			return false
		}},

		// Metadata outside the writable roots, which Landlock does not cover.
		canaryAttempt("chmod a file outside (setuid bit)", func(e *attackEnv) []string { return []string{"chmod=" + e.canary + ",4755"} }),
		canaryAttempt("chown a file outside", func(e *attackEnv) []string {
			return []string{fmt.Sprintf("chown=%s,%d,%d", e.canary, os.Getuid(), os.Getgid())}
		}),
		canaryAttempt("set the times of a file outside", func(e *attackEnv) []string { return []string{"utime=" + e.canary} }),
		canaryAttempt("set an xattr on a file outside", func(e *attackEnv) []string { return []string{"setxattr=" + e.canary} }),
		canaryAttempt("chattr a file outside", func(e *attackEnv) []string { return []string{"chattr=" + e.canary} }),

		// Names that run code outside the sandbox later.
		{name: "write into the workspace's .git", class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			p := filepath.Join(e.cwd, ".git", "config")
			e.run("write=" + p)
			b, _ := os.ReadFile(p)
			return string(b) != "[core]\n"
		}},
		{name: "rename the workspace's .git away", class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			e.run("rename=" + filepath.Join(e.cwd, ".git") + "," + filepath.Join(e.cwd, "git-old"))
			return exists(filepath.Join(e.cwd, "git-old"))
		}},
		protectedAttempt("create .git where there is none (core.fsmonitor)", ".git/config"),
		protectedAttempt("create .codex/config.toml", ".codex/config.toml"),
		protectedAttempt("create .agents/skills", ".agents/skills/SKILL.md"),
		protectedAttempt("create .aws/credentials", ".aws/credentials"),
		{name: "create .git as a symlink to outside", class: "protected", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			e.runIn(e.bare, nil, "symlink="+e.outside+","+filepath.Join(e.bare, ".git"))
			var st unix.Stat_t
			return unix.Lstat(filepath.Join(e.bare, ".git"), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
		}},

		// Privileges.
		{name: "capabilities left in any set (seen in /proc from outside)", class: "privileges", mustBlock: func(m Mechanism, _ int) bool {
			// Without a user namespace only root can empty the bounding set (CAP_SETPCAP).
			return m.usesNamespaces() || os.Getuid() == 0
		}, try: func(e *attackEnv) bool {
			marker := uniq("gocodex-attack-caps")
			done := make(chan struct{})
			go func() { e.run("hold=" + marker); close(done) }()
			defer func() { <-done }()
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				for _, pid := range marked(marker) {
					// The tool itself, not a wrapper (helper, shell, codex, bwrap) that carries
					// the marker in its arguments.
					cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					if argv := strings.Split(string(cmdline), "\x00"); len(argv) < 2 || argv[1] != toolArg {
						continue
					}
					status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
					if err != nil {
						continue
					}
					return capsLeft(string(status)) != nil
				}
			}
			e.t.Errorf("the holding process was never seen")
			return false
		}},
		{name: "mknod a block device in the workspace", class: "privileges", try: func(e *attackEnv) bool {
			node := filepath.Join(e.cwd, "disk")
			e.run("mknod-block=" + node)
			var st unix.Stat_t
			return unix.Lstat(node, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK
		}},
		{name: "mount_setattr a host mount read-only", class: "privileges", root: true, try: func(e *attackEnv) bool {
			mnt := filepath.Join(e.outside, "mnt")
			if err := os.Mkdir(mnt, 0o755); err != nil {
				e.t.Fatal(err)
			}
			if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k"); err != nil {
				e.t.Skip(err)
			}
			defer unix.Unmount(mnt, unix.MNT_DETACH)
			e.run("mount-setattr-ro=" + mnt)
			var st unix.Statfs_t
			return unix.Statfs(mnt, &st) == nil && st.Flags&unix.ST_RDONLY != 0
		}},
		{name: "set the host name", class: "privileges", try: func(e *attackEnv) bool {
			orig, _ := os.Hostname()
			e.run("sethostname=gocodex-attack")
			if now, _ := os.Hostname(); now != orig {
				_ = unix.Sethostname([]byte(orig))
				return true
			}
			return false
		}},
		{name: "add a key to the user's keyring", class: "privileges", try: func(e *attackEnv) bool {
			desc := uniq("gocodex-attack")
			e.run("add-key=" + desc)
			id, err := unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", desc, 0)
			if err == nil {
				_, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0)
				return true
			}
			return false
		}},
		{name: "create a bpf map", class: "privileges", try: kernelSays("bpf")},
		{name: "open a system-wide perf event", class: "privileges", try: kernelSays("perf")},
		{name: "create a userfaultfd", class: "privileges", try: kernelSays("userfaultfd")},
		{name: "set up io_uring (bypasses seccomp)", class: "privileges", try: kernelSays("io_uring")},
		{name: "unshare a user namespace and remount a host path writable", class: "privileges", try: func(e *attackEnv) bool {
			if _, err := exec.LookPath("unshare"); err != nil {
				e.t.Skip("no unshare")
			}
			script := fmt.Sprintf("unshare -Urm sh -c 'mount -o remount,bind,rw %s 2>/dev/null; mount --bind %s %s 2>/dev/null; echo escaped > %s'", e.outside, e.cwd, e.outside, e.canary)
			argv := e.r.argv(e.cwd)
			argv = append(argv[:len(argv)-2:len(argv)-2], "/bin/sh", "-c", script)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = e.cwd, e.r.env
			_, _ = cmd.CombinedOutput()
			return e.canaryChanged()
		}},

		// Other processes.
		{name: "SIGKILL a process outside", class: "processes", mustBlock: scopedOrNamespaces, try: func(e *attackEnv) bool {
			v := victim(e.t)
			e.run("kill=" + strconv.Itoa(v.Process.Pid))
			time.Sleep(50 * time.Millisecond)
			return !alive(v.Process.Pid)
		}},
		{name: "renice a process outside", class: "processes", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			v := victim(e.t)
			e.run("renice=" + strconv.Itoa(v.Process.Pid))
			prio, err := unix.Getpriority(unix.PRIO_PROCESS, v.Process.Pid)
			return err == nil && 20-prio == 19
		}},
		{name: "raise the OOM score of a process outside", class: "processes", try: func(e *attackEnv) bool {
			v := victim(e.t)
			p := fmt.Sprintf("/proc/%d/oom_score_adj", v.Process.Pid)
			e.run("write-value=" + p + ",1000")
			b, _ := os.ReadFile(p)
			return strings.TrimSpace(string(b)) == "1000"
		}},
		{name: "ptrace a process outside", class: "processes", try: kernelSaysPid("ptrace-attach")},
		{name: "process_vm_writev into a process outside", class: "processes", try: kernelSaysPid("vm-write")},
		{name: "SIGKILL a process outside through a pidfd", class: "processes", mustBlock: scopedOrNamespaces, try: func(e *attackEnv) bool {
			v := victim(e.t)
			e.run("pidfd-kill=" + strconv.Itoa(v.Process.Pid))
			time.Sleep(50 * time.Millisecond)
			return !alive(v.Process.Pid)
		}},
		{name: "a daemon that outlives the command", class: "processes", mustBlock: withNamespaces, try: func(e *attackEnv) bool {
			marker := uniq("gocodex-attack-daemon")
			e.run("daemon=" + marker)
			time.Sleep(100 * time.Millisecond)
			pids := marked(marker)
			for _, pid := range pids {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			return len(pids) > 0
		}},

		// Terminals.
		{name: "TIOCSTI into the terminal on stdin", class: "terminal", try: func(e *attackEnv) bool {
			ptmx, tty := openPty(e.t)
			defer ptmx.Close()
			defer tty.Close()
			e.runIn(e.cwd, tty, "tiocsti")
			return pendingInput(e.t, tty)
		}},
		{name: "TIOCSTI through the controlling terminal of the shell that started it", class: "terminal", try: func(e *attackEnv) bool {
			ptmx, tty := openPty(e.t)
			defer ptmx.Close()
			defer tty.Close()
			// A shell with the terminal as its controlling terminal starts the command, as a
			// person's shell starts gocodex; the command's stdin is not the terminal.
			argv := e.r.argv(e.cwd, "tiocsti-tty")
			shell := exec.Command(argv[0], argv[1:]...)
			shell.Dir, shell.Env = e.cwd, e.r.env
			shell.Stdin, shell.Stdout, shell.Stderr = tty, tty, tty
			shell.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := shell.Run(); err != nil {
				e.t.Logf("shell: %v", err)
			}
			return pendingInput(e.t, tty)
		}},
		{name: "TIOCSTI into another terminal by its path", class: "terminal", try: func(e *attackEnv) bool {
			ptmx, tty := openPty(e.t)
			defer ptmx.Close()
			defer tty.Close()
			e.run("tiocsti-path=" + tty.Name())
			return pendingInput(e.t, tty)
		}},
		{name: "write to another terminal by its path", class: "terminal", try: func(e *attackEnv) bool {
			ptmx, tty := openPty(e.t)
			defer ptmx.Close()
			defer tty.Close()
			e.run("write-path=" + tty.Name())
			return readable(e.t, ptmx)
		}},

		// The network, restricted by the workspace-write policy.
		{name: "TCP connect to a loopback listener", class: "network", try: func(e *attackEnv) bool {
			return listenAndTry(e, "tcp4", "127.0.0.1:0", "tcp-connect")
		}},
		{name: "TCP connect over IPv6 loopback", class: "network", try: func(e *attackEnv) bool {
			return listenAndTry(e, "tcp6", "[::1]:0", "tcp6-connect")
		}},
		{name: "UDP datagram to a loopback listener", class: "network", try: func(e *attackEnv) bool {
			ln, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				e.t.Skip(err)
			}
			defer ln.Close()
			e.run("udp-send=" + ln.LocalAddr().String())
			_ = ln.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			n, _, _ := ln.ReadFrom(make([]byte, 16))
			return n > 0
		}},
		{name: "UDP datagram over IPv6 loopback", class: "network", try: func(e *attackEnv) bool {
			ln, err := net.ListenPacket("udp6", "[::1]:0")
			if err != nil {
				e.t.Skip(err)
			}
			defer ln.Close()
			e.run("udp6-send=" + ln.LocalAddr().String())
			_ = ln.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			n, _, _ := ln.ReadFrom(make([]byte, 16))
			return n > 0
		}},
		{name: "listen on a loopback port", class: "network", try: kernelSays("listen=127.0.0.1:0")},
		{name: "datagram to an abstract unix socket outside (sendmsg with an address)", class: "network", mustBlock: scopedOrNamespaces, try: func(e *attackEnv) bool {
			name := uniq("gocodex-attack")
			ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: "@" + name, Net: "unixgram"})
			if err != nil {
				e.t.Fatal(err)
			}
			defer ln.Close()
			e.run("abstract-send=" + name)
			return received(ln)
		}},
		{name: "connect to an abstract unix socket outside", class: "network", mustBlock: scopedOrNamespaces, try: func(e *attackEnv) bool {
			name := uniq("gocodex-attack")
			return unixListenAndTry(e, "@"+name, "abstract-connect="+name)
		}},
		{name: "connect to a pathname unix socket outside the roots", class: "network", try: func(e *attackEnv) bool {
			p := filepath.Join(e.outside, "sock")
			return unixListenAndTry(e, p, "unix-connect="+p)
		}},
		datagramAttempt("datagram to a pathname unix socket outside the roots", "unix-send"),
		{name: "open a netlink socket", class: "network", try: kernelSays("socket=netlink")},
		{name: "open a packet socket", class: "network", try: kernelSays("socket=packet")},
		{name: "open a raw IP socket", class: "network", try: kernelSays("socket=inet-raw")},
		{name: "open a vsock socket", class: "network", try: kernelSays("socket=vsock")},
		{name: "open a crypto (AF_ALG) socket", class: "network", try: kernelSays("socket=alg")},
	}, hardeningAttempts()...)
}

func kernelSaysPid(op string) func(e *attackEnv) bool {
	return func(e *attackEnv) bool {
		v := victim(e.t)
		return strings.Contains(e.run(op+"="+strconv.Itoa(v.Process.Pid)), op+" ok")
	}
}

func openPty(t *testing.T) (*os.File, *os.File) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip(err)
	}
	if err := os.Chmod(tty.Name(), 0o666); err != nil {
		t.Log(err)
	}
	return ptmx, tty
}

// pendingInput reports whether anything waits in the terminal's input queue, which is where
// TIOCSTI puts its "typed" bytes.
func pendingInput(t *testing.T, tty *os.File) bool {
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// readable reports whether the terminal's master side has output to read.
func readable(t *testing.T, ptmx *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(ptmx.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 100)
	return err == nil && n > 0
}

func received(ln *net.UnixConn) bool {
	_ = ln.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	n, _, _ := ln.ReadFromUnix(make([]byte, 64))
	return n > 0
}

func listenAndTry(e *attackEnv, network, addr, op string) bool {
	ln, err := net.Listen(network, addr)
	if err != nil {
		e.t.Skip(err)
	}
	defer ln.Close()
	return acceptedWhile(ln, func() { e.run(op + "=" + ln.Addr().String()) })
}

// acceptedWhile reports whether ln accepted a connection while run ran (or just after).
func acceptedWhile(ln net.Listener, run func()) bool {
	accepted := make(chan bool, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err == nil
	}()
	run()
	select {
	case ok := <-accepted:
		return ok
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

func unixListenAndTry(e *attackEnv, addr, op string) bool {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		e.t.Fatal(err)
	}
	defer ln.Close()
	if !strings.HasPrefix(addr, "@") {
		_ = os.Chmod(addr, 0o777)
	}
	return acceptedWhile(ln, func() { e.run(op) })
}

// newAttackEnv makes the attempt's directories under /var/tmp (outside every default root).
func newAttackEnv(t *testing.T, r attackRunner) *attackEnv {
	e := &attackEnv{t: t, r: r, cwd: outsideTmp(t), bare: outsideTmp(t), outside: outsideTmp(t)}
	if err := os.MkdirAll(filepath.Join(e.cwd, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cwd, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.canary = filepath.Join(e.outside, "canary")
	if err := os.WriteFile(e.canary, []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	_ = os.Chtimes(e.canary, past, past)
	e.before = readCanary(e.canary)
	return e
}

// gocodexRunners are the mechanisms this machine has, strongest first.
func gocodexRunners(t *testing.T) []attackRunner {
	var rs []attackRunner
	for _, m := range mechanisms {
		opts := m.opts
		opts.Executable = testExe(t)
		r := Probe(t.Context(), opts)
		if r.Mechanism != m.want {
			t.Logf("mechanism %s unavailable here: %s", m.name, r.Message())
			continue
		}
		probe, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		home := outsideTmp(t) // outside every writable root
		writeCredentials(t, home)
		rs = append(rs, attackRunner{
			name: "gocodex " + m.name, mechanism: m.want, codexHome: home,
			env: append(baseEnv(""), probeEnv+"="+string(probe), "CODEX_HOME="+home),
			argv: func(cwd string, ops ...string) []string {
				return append([]string{testExe(t), shellArg, m.name, cwd, testExe(t), toolArg}, ops...)
			},
		})
	}
	return rs
}

// codexRunner runs the ops under `codex sandbox` with the workspace-write policy, in the
// workspace as its working directory (0.169 takes -C only with a permission profile).
func codexRunner(t *testing.T, codex string) attackRunner {
	home, err := os.MkdirTemp("/var/tmp", "gocodex-attack-codex-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	writeCredentials(t, home)
	env := append(baseEnv(""), "CODEX_HOME="+home)
	return attackRunner{
		name: "codex 0.169", env: env, codexHome: home,
		argv: func(cwd string, ops ...string) []string {
			return append([]string{codex, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", testExe(t), toolArg}, ops...)
		},
	}
}

// shellArg makes the test binary start the tool under one gocodex mechanism through Command,
// with its own standard streams: a stand-in for gocodex itself, so that the attempts that
// need a parent (a shell holding a terminal) run the same way for gocodex and for Codex.
const shellArg = "--sandbox-test-shell"

// probeEnv carries the runner's probe to the shell, which would otherwise probe again for
// every attempt, as a session probes once.
const probeEnv = "GOCODEX_ATTACK_PROBE"

func shellMain(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: --sandbox-test-shell MECHANISM CWD COMMAND...")
		return 2
	}
	for _, m := range mechanisms {
		if m.name != args[0] {
			continue
		}
		opts := m.opts
		opts.Executable, _ = os.Executable()
		var probe *ProbeResult
		if raw := os.Getenv(probeEnv); raw != "" {
			probe = new(ProbeResult)
			if err := json.Unmarshal([]byte(raw), probe); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
		cmd, err := Command(context.Background(), Request{Policy: protocol.NewWorkspaceWritePolicy(), Cwd: args[1], Argv: args[2:], Env: os.Environ(), Probe: probe, Options: opts})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		err = cmd.Run()
		Reclaim(cmd) // as gocodex's process package does after every command
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown mechanism %s\n", args[0])
	return 2
}

type verdicts map[string]map[string]string // uid kind -> attempt -> blocked|escaped

func uidKind() string {
	if os.Getuid() == 0 {
		return "root"
	}
	return "unprivileged"
}

func TestAttacks(t *testing.T) {
	runners := gocodexRunners(t)
	if len(runners) == 0 {
		t.Skip("no sandbox mechanism on this machine")
	}
	codex := os.Getenv("GOCODEX_REFERENCE_CODEX")
	if codex != "" {
		runners = append(runners, codexRunner(t, codex))
	} else if *recordCodexAttacks {
		t.Fatal("-record-codex-attacks needs GOCODEX_REFERENCE_CODEX")
	}
	abi := LandlockABI()
	got := map[string]map[string]bool{} // runner -> attempt -> escaped
	for _, r := range runners {
		got[r.name] = map[string]bool{}
	}
	var order []string
	for _, a := range attempts() {
		order = append(order, a.name)
		t.Run(a.name, func(t *testing.T) {
			if a.root && os.Getuid() != 0 {
				t.Skip("the set-up needs root")
			}
			for _, r := range runners {
				e := newAttackEnv(t, r)
				escaped := a.try(e)
				got[r.name][a.name] = escaped
				if r.mechanism == "" || !escaped {
					continue
				}
				strongest := r.mechanism == runners[0].mechanism
				_, accepted := acceptedEscapes[a.name]
				switch {
				case accepted:
				case strongest:
					t.Errorf("escaped from %s", r.name)
				case a.mustBlock == nil || a.mustBlock(r.mechanism, abi):
					t.Errorf("escaped from %s, which is meant to stop it", r.name)
				}
			}
		})
	}
	report(t, runners, order, got)

	recorded := loadCodexVerdicts(t)
	if codex != "" {
		live := map[string]string{}
		for name, escaped := range got["codex 0.169"] {
			live[name] = verdict(escaped)
		}
		if out := os.Getenv(verdictsOutEnv); out != "" {
			writeVerdicts(t, out, verdicts{uidKind(): live})
		}
		if *recordCodexAttacks && os.Getenv(verdictsOutEnv) == "" {
			recorded[uidKind()] = live
			writeVerdicts(t, codexAttacksFile, recorded)
		} else if old := recorded[uidKind()]; old != nil {
			for name, v := range live {
				if old[name] != "" && old[name] != v {
					t.Logf("codex 0.169 now %s %q (recorded %s)", v, name, old[name])
				}
			}
		}
		recorded[uidKind()] = live
	}
	codexSaw := recorded[uidKind()]
	if codexSaw == nil {
		t.Logf("no Codex verdicts for %s runs: only the strongest mechanism's own expectations were checked", uidKind())
		return
	}
	strongest := runners[0]
	for _, name := range order {
		escaped, ran := got[strongest.name][name]
		if ran && escaped && codexSaw[name] == "blocked" {
			t.Errorf("%q: Codex 0.169 blocks it, %s lets it through", name, strongest.name)
		}
	}
	for name, why := range acceptedEscapes {
		if codexSaw[name] == "blocked" {
			t.Errorf("accepted escape %q (%s) is blocked by Codex 0.169", name, why)
		}
	}
}

func verdict(escaped bool) string {
	if escaped {
		return "escaped"
	}
	return "blocked"
}

func report(t *testing.T, runners []attackRunner, order []string, got map[string]map[string]bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "attempts as %s (uid %d), Landlock ABI %d:\n%-72s", uidKind(), os.Getuid(), LandlockABI(), "")
	for _, r := range runners {
		fmt.Fprintf(&b, " %-28s", r.name)
	}
	b.WriteString("\n")
	blocked := map[string]int{}
	for _, name := range order {
		fmt.Fprintf(&b, "%-72s", name)
		for _, r := range runners {
			escaped, ok := got[r.name][name]
			v := "skipped"
			if ok {
				v = verdict(escaped)
				if !escaped {
					blocked[r.name]++
				}
			}
			fmt.Fprintf(&b, " %-28s", v)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%-72s", "blocked")
	for _, r := range runners {
		fmt.Fprintf(&b, " %-28s", fmt.Sprintf("%d/%d", blocked[r.name], len(got[r.name])))
	}
	t.Log(b.String())
}

func loadCodexVerdicts(t *testing.T) verdicts {
	v := verdicts{}
	b, err := os.ReadFile(codexAttacksFile)
	if err != nil {
		return v
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", codexAttacksFile, err)
	}
	return v
}

func writeVerdicts(t *testing.T, path string, v verdicts) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// verdictsOutEnv names a file a nested (unprivileged) run writes Codex's live verdicts to.
const verdictsOutEnv = "GOCODEX_ATTACK_VERDICTS_OUT"

// TestAttacksUnprivileged reruns TestAttacks as nobody, the way most people run gocodex
// (the namespace path then works from an ambient CAP_SYS_ADMIN, and root's bypass of file
// permissions plays no part), with Codex's binary tree linked where nobody can run it.
func TestAttacksUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("already unprivileged, or cannot switch users")
	}
	dir := nobodyDir(t)
	bin := copyForNobody(t, dir)
	env := append(baseEnv(""), "GOCODEX_SANDBOX_TEST_NESTED=1", "HOME="+dir)
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(outDir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "verdicts.json")
	if codex := os.Getenv("GOCODEX_REFERENCE_CODEX"); codex != "" {
		// codex sits under /root, which nobody cannot enter: link its vendor tree (same file
		// system, no copy) into a directory nobody can.
		vendor := filepath.Dir(filepath.Dir(codex))
		linked := filepath.Join(dir, "codex-vendor")
		if b, err := exec.Command("cp", "-al", vendor, linked).CombinedOutput(); err != nil {
			t.Logf("Codex not linked for nobody (%v: %s); its verdicts come from the recording", err, b)
		} else {
			env = append(env, "GOCODEX_REFERENCE_CODEX="+filepath.Join(linked, filepath.Base(filepath.Dir(codex)), filepath.Base(codex)), verdictsOutEnv+"="+out)
		}
	} else {
		env = append(env, "GOCODEX_REFERENCE_CODEX=")
	}
	cmd := exec.Command(bin, "-test.run", "^TestAttacks$", "-test.v")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	output, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", attackTable(string(output)))
	if err != nil {
		t.Fatalf("the suite as nobody: %v\n%s", err, output)
	}
	if *recordCodexAttacks {
		var live verdicts
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("no Codex verdicts from the run as nobody: %v", err)
		}
		if err := json.Unmarshal(b, &live); err != nil {
			t.Fatal(err)
		}
		recorded := loadCodexVerdicts(t)
		recorded["unprivileged"] = live["unprivileged"]
		writeVerdicts(t, codexAttacksFile, recorded)
	}
}

// attackTable keeps the report of a verbose test run: the lines of the table and the failures.
func attackTable(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "escaped") || strings.Contains(l, "blocked") || strings.Contains(l, "attempts as") || strings.Contains(l, "gocodex ") || strings.Contains(l, "FAIL") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
