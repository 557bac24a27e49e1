package sandbox

import (
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"
)

// setupMounts runs inside the fresh user + mount namespace Command asked for. With
// confineAll (the fallback when Landlock is missing) the whole tree becomes read-only and the
// writable roots are re-bound writable; in every case the protected subpaths are bound
// read-only on top, which Landlock alone cannot express (its rights only add up).
func setupMounts(roots []WritableRoot, confineAll bool) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if confineAll {
		for _, r := range roots {
			if err := bindSelf(r.Root); err != nil {
				return err
			}
		}
		if err := setReadOnly("/", true); err != nil {
			return err
		}
		for _, r := range roots {
			// A root the outer namespace mounted read-only stays so: fewer writes, not more.
			if err := setReadOnly(r.Root, false); err != nil && !errors.Is(err, unix.EPERM) {
				return err
			}
		}
	}
	var done []string
	for _, r := range roots {
		for _, p := range r.ReadOnlySubpaths {
			if slices.Contains(done, p) {
				continue
			}
			if err := bindSelf(p); err != nil {
				return err
			}
			if err := setReadOnly(p, true); err != nil {
				return err
			}
			done = append(done, p)
		}
	}
	return nil
}

func bindSelf(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	return nil
}

// setReadOnly flips the read-only attribute of the mount tree at path. Clearing it is tried
// recursively first; a submount the outer namespace locked read-only refuses (EPERM), and
// then only the top mount is made writable, which errs on the side of fewer writes.
func setReadOnly(path string, ro bool) error {
	attr := unix.MountAttr{}
	if ro {
		attr.Attr_set = unix.MOUNT_ATTR_RDONLY
	} else {
		attr.Attr_clr = unix.MOUNT_ATTR_RDONLY
	}
	err := unix.MountSetattr(unix.AT_FDCWD, path, unix.AT_RECURSIVE, &attr)
	if err != nil && !ro && errors.Is(err, unix.EPERM) {
		err = unix.MountSetattr(unix.AT_FDCWD, path, 0, &attr)
	}
	if err != nil {
		return fmt.Errorf("mount_setattr %s (read-only=%v): %w", path, ro, err)
	}
	return nil
}

// dropMountCapability removes CAP_SYS_ADMIN for good before the command runs, so that the
// command cannot unmount the read-only binds: from the bounding set (which a command running
// as root in the namespace would otherwise regain at exec) and from the permitted, effective
// and inheritable sets (which an unprivileged user held only for the mounts).
func dropMountCapability() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_ADMIN, 0, 0, 0); err != nil {
		// Without CAP_SETPCAP (an unprivileged user) the bounding set cannot shrink; such a
		// user gains nothing from it at exec under no_new_privs once the sets below are clear.
		if !errors.Is(err, unix.EPERM) || unix.Geteuid() == 0 {
			return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	const bit = uint32(1) << (unix.CAP_SYS_ADMIN % 32)
	idx := unix.CAP_SYS_ADMIN / 32
	data[idx].Effective &^= bit
	data[idx].Permitted &^= bit
	data[idx].Inheritable &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop CAP_SYS_ADMIN: %w", err)
	}
	return nil
}
