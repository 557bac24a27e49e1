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

// HelperMain is the sandbox helper: it confines its own thread as the policy says and execs
// the command in place. It only returns on failure, with the exit status to use.
func HelperMain(args []string) int {
	h, err := parseHelperArgs(args, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", HelperArg0, err)
		return 2
	}
	// Every restriction below is per thread; the exec must happen on the thread that holds them.
	runtime.LockOSThread()
	if h.probeUserNS {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			fmt.Fprintf(os.Stderr, "%s: mount namespace: %v\n", HelperArg0, err)
			return 1
		}
		return 0
	}
	if err := confine(h); err != nil {
		fmt.Fprintf(os.Stderr, "%s: refusing to run the command unconfined: %v\n", HelperArg0, err)
		return 1
	}
	path, err := exec.LookPath(h.argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", h.argv[0], err)
		return 127
	}
	err = syscall.Exec(path, h.argv, os.Environ())
	fmt.Fprintf(os.Stderr, "%s: exec %s: %v\n", HelperArg0, h.argv[0], err)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) {
		return 126
	}
	return 127
}

// confine applies the mount namespace binds (when asked), no_new_privs, Landlock and seccomp,
// in that order: mounts need CAP_SYS_ADMIN, which no_new_privs and the dropped capability end.
func confine(h helperArgs) error {
	roots := WritableRoots(h.policy, h.policyCwd, os.Getenv)
	if h.policy.HasFullDiskWriteAccess() {
		return errors.New("danger-full-access never runs through the helper")
	}
	if h.mechanism.usesNamespaces() {
		if err := setupMounts(roots, h.mechanism == MechanismNamespaces); err != nil {
			return err
		}
		if err := dropMountCapability(); err != nil {
			return err
		}
	}
	// Binds hide what was below them, including this process's working directory.
	if err := unix.Chdir(h.commandCwd); err != nil {
		return fmt.Errorf("chdir %s: %w", h.commandCwd, err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if h.mechanism.usesLandlock() {
		if err := applyLandlock(roots); err != nil {
			return err
		}
	}
	return seccomp.Install(seccomp.Options{AllowNetwork: h.policy.HasFullNetworkAccess()})
}
