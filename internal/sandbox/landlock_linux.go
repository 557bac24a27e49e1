package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock file-system rights (linux/landlock.h). We handle the rights of ABI 1 to 3 and leave
// the device-ioctl (ABI 5) and unix-socket (ABI 9) rights unhandled, so terminals and local
// daemons keep working: the policy is about which files a command may change.
const (
	llExecute    = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile  = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile   = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir    = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRefer      = unix.LANDLOCK_ACCESS_FS_REFER
	llTruncate   = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llAllABI1    = 0x1fff // EXECUTE through MAKE_SYM
	llRead       = llExecute | llReadFile | llReadDir
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate
)

// LandlockABI returns the Landlock ABI version the kernel offers, 0 when Landlock is missing
// or disabled at boot.
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// handledRights is what a ruleset restricts on a kernel with the given ABI (best effort: an
// older kernel restricts fewer operations rather than refusing to run).
func handledRights(abi int) uint64 {
	r := uint64(llAllABI1)
	if abi >= 2 {
		r |= llRefer
	}
	if abi >= 3 {
		r |= llTruncate
	}
	return r
}

type landlockRulesetAttr struct {
	handledAccessFS uint64
}

// applyLandlock confines the calling thread (and what it execs) to reading everywhere and
// writing only beneath the roots, to /dev/null and to the terminals. no_new_privs must
// already be set.
func applyLandlock(roots []WritableRoot) error {
	abi := LandlockABI()
	if abi < 1 {
		return errors.New("landlock is not available on this kernel")
	}
	handled := handledRights(abi)
	attr := landlockRulesetAttr{handledAccessFS: handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addPathRule(int(fd), "/", llRead); err != nil {
		return err
	}
	// Besides /dev/null, terminals stay writable: writing to a tty changes no file, and
	// commands run on a pty open /dev/tty or /dev/stderr (a /dev/pts/N) for prompts and errors.
	for _, dev := range []string{"/dev/null", "/dev/tty", "/dev/ptmx", "/dev/pts"} {
		if err := addPathRule(int(fd), dev, (llReadFile|llWriteFile|llTruncate)&handled); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	for _, r := range roots {
		if err := addPathRule(int(fd), r.Root, handled); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

func addPathRule(rulesetFD int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// Rules on files may only carry file rights.
		access &= llFileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}
