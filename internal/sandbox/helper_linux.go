package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gocodex/gocodex/internal/sandbox/seccomp"
)

// HelperMain is the sandbox helper. With namespaces it is the first process of the new PID
// namespace: it builds the command's view of the file system, starts the command confined
// and waits for it (see supervise). Without, it confines itself and execs the command in
// place. It only returns on failure or when the command has ended, with the exit status.
func HelperMain(args []string) int {
	h, err := parseHelperArgs(args, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", HelperArg0, err)
		return 2
	}
	if h.probeUserNS {
		return probeMain()
	}
	if h.lifelineFD >= 0 {
		// Tell gocodex the helper holds its copy of the lifeline; keep it from the command.
		var st unix.Stat_t
		if err := unix.Fstat(h.lifelineFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return refuse(fmt.Errorf("descriptor %d is not gocodex's lifeline pipe (the caller replaced cmd.ExtraFiles)", h.lifelineFD))
		}
		unix.CloseOnExec(h.lifelineFD)
		if _, err := unix.Write(h.lifelineFD, []byte{1}); err != nil {
			return refuse(fmt.Errorf("lifeline to gocodex: %w", err))
		}
	}
	if err := ownSession(); err != nil {
		return refuse(err)
	}
	path, err := exec.LookPath(h.argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", h.argv[0], err)
		return 127
	}
	if h.mechanism.usesNamespaces() {
		return supervise(h, path)
	}
	// Every restriction below is per thread; the exec must happen on the thread that holds them.
	runtime.LockOSThread()
	if err := confineThread(h, WritableRoots(h.policy, h.policyCwd, os.Getenv)); err != nil {
		return refuse(err)
	}
	err = syscall.Exec(path, h.argv, os.Environ())
	fmt.Fprintf(os.Stderr, "%s: exec %s: %v\n", HelperArg0, h.argv[0], err)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) {
		return 126
	}
	return 127
}

func refuse(err error) int {
	fmt.Fprintf(os.Stderr, "%s: refusing to run the command unconfined: %v\n", HelperArg0, err)
	return 1
}

// ownSession makes sure the command cannot reach the person's terminal: a session of its own
// has no controlling terminal, so /dev/tty and TIOCSTI on it are out of reach. Command starts
// the helper in a new session already (or on a pty of its own); a helper started some other
// way makes one here.
func ownSession() error {
	if sid, err := unix.Getsid(0); err == nil && sid == unix.Getpid() {
		return nil
	}
	if _, err := unix.Setsid(); err != nil {
		return fmt.Errorf("setsid (start the helper as the leader of a new session): %w", err)
	}
	return nil
}

// confineThread applies, to the calling locked thread and what it starts: the working
// directory, no_new_privs, no capabilities in any set, Landlock and seccomp, in that order
// (Landlock and seccomp need no_new_privs; dropping the bounding set needs CAP_SETPCAP, which
// goes with the rest).
func confineThread(h helperArgs, roots []WritableRoot) error {
	if h.policy.HasFullDiskWriteAccess() {
		return errors.New("danger-full-access never runs through the helper")
	}
	// Binds hide what was below them, including this process's working directory.
	if err := unix.Chdir(h.commandCwd); err != nil {
		return fmt.Errorf("chdir %s: %w", h.commandCwd, err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, err := dropAllCapabilities(); err != nil {
		return err
	}
	restrictNet := !h.policy.HasFullNetworkAccess()
	if h.mechanism.usesLandlock() {
		devices := append(stdTerminals(), viewWritableDevices...)
		if !h.mechanism.usesNamespaces() {
			devices = append(stdTerminals(), hostWritableDevices...)
		}
		if err := applyLandlock(landlockRules{roots: roots, devices: devices, scopeAbstractSockets: restrictNet, confineUnixSockets: restrictNet}); err != nil {
			return err
		}
	}
	return seccomp.Install(seccomp.Options{
		AllowNetwork:       !restrictNet,
		AllowUnixDatagrams: confinesUnixSockets(h.mechanism, LandlockABI(), restrictNet),
	})
}

// hostWritableDevices are the devices Landlock leaves writable when the command shares the
// host's /dev: never the whole of /dev/pts, where the person's other terminals are.
var hostWritableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// stdTerminals names the terminals on the standard streams (a pty the engine opened for the
// command), through /proc/self/fd so the rule reaches the very terminal even where the private
// /dev hides its name; programs reopen them as /dev/stderr.
func stdTerminals() []string {
	var devs []string
	for fd := 0; fd <= 2; fd++ {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			devs = append(devs, fmt.Sprintf("/proc/self/fd/%d", fd))
		}
	}
	return devs
}
