package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock file-system rights (linux/landlock.h). We handle the rights of ABI 1 to 3 and leave
// the device-ioctl (ABI 5) right unhandled, so terminals keep working: the policy is about
// which files a command may change. The unix-socket right (ABI 9) is handled only when the
// network is restricted, so that no pathname socket outside the writable roots is reached;
// with the network allowed, local daemons stay reachable.
const (
	llExecute     = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile   = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile    = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir     = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRefer       = unix.LANDLOCK_ACCESS_FS_REFER
	llTruncate    = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llResolveUnix = unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	llAllABI1     = 0x1fff // EXECUTE through MAKE_SYM
	llRead        = llExecute | llReadFile | llReadDir
	llFileRights  = llExecute | llWriteFile | llReadFile | llTruncate
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

// confinesUnixSockets reports whether Landlock keeps pathname unix sockets outside the roots
// out of reach: with the network restricted, on ABI 9 and later.
func confinesUnixSockets(m Mechanism, abi int, restrictNet bool) bool {
	return m.usesLandlock() && restrictNet && abi >= landlockResolveUnixABI
}

// Landlock scopes (ABI 6): a sandboxed process may only signal, and only reach abstract unix
// sockets of, processes inside its own domain.
const (
	landlockScopeABI          = 6
	llScopeAbstractUnixSocket = 1 << 0
	llScopeSignal             = 1 << 1
)

// landlockRulesetAttr is struct landlock_ruleset_attr up to ABI 6; the size passed tells the
// kernel how much of it we fill.
type landlockRulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// landlockRules is what applyLandlock allows besides reading everywhere.
type landlockRules struct {
	roots []WritableRoot
	// devices are the device files and directories that stay writable.
	devices []string
	// scopeAbstractSockets keeps abstract unix sockets outside the domain unreachable (set
	// when the network is restricted); signals are always scoped when the kernel can.
	scopeAbstractSockets bool
	// confineUnixSockets keeps pathname unix sockets outside the roots unreachable where the
	// kernel can (ABI 9; set when the network is restricted).
	confineUnixSockets bool
}

// applyLandlock confines the calling thread (and what it execs) to reading everywhere and
// writing only beneath the roots and to the listed devices; on ABI 6 and later it also scopes
// signals (and abstract sockets, when asked) to the sandbox's own processes. no_new_privs must
// already be set.
func applyLandlock(rules landlockRules) error {
	abi := LandlockABI()
	if abi < 1 {
		return errors.New("landlock is not available on this kernel")
	}
	handled := handledRights(abi)
	if rules.confineUnixSockets && abi >= landlockResolveUnixABI {
		handled |= llResolveUnix
	}
	attr := landlockRulesetAttr{handledAccessFS: handled}
	size := unsafe.Sizeof(attr.handledAccessFS)
	if abi >= landlockScopeABI {
		attr.scoped = llScopeSignal
		if rules.scopeAbstractSockets {
			attr.scoped |= llScopeAbstractUnixSocket
		}
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addPathRule(int(fd), "/", llRead); err != nil {
		return err
	}
	for _, dev := range rules.devices {
		if err := addPathRule(int(fd), dev, handled); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	roots := rules.roots
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
		// Rules on files may only carry file rights; a device is never executed.
		access &= llFileRights
		if st.Mode&unix.S_IFMT == unix.S_IFCHR {
			access &^= llExecute
		}
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}
