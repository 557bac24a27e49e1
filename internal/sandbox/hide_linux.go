package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// hideCredentials covers each existing path with an empty entry of its kind (a file or a
// directory) that has no permission bits, on a read-only private tmpfs: the command, which
// has no capability left to override permissions, gets EACCES, and cannot remove, rename or
// replace what is a mount point. Paths that do not exist, or that the helper cannot reach
// (the command, with fewer rights, cannot either), are left alone.
func hideCredentials(paths []string) error {
	var files, dirs []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
			continue // nothing to hide, or out of the command's reach as it is of the helper's
		case err != nil:
			return fmt.Errorf("hide %s: %w", p, err)
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	if len(files)+len(dirs) == 0 {
		return nil
	}
	mnt, err := emptyEntries()
	if err != nil {
		return err
	}
	defer unix.Close(mnt)
	for src, targets := range map[string][]string{"file": files, "dir": dirs} {
		for _, target := range targets {
			if err := attachReadOnly(mnt, src, target); err != nil {
				return fmt.Errorf("hide %s: %w", target, err)
			}
		}
	}
	return nil
}

// emptyEntries mounts a detached tmpfs holding an empty file and an empty directory, both of
// mode 0, and returns its mount descriptor.
func emptyEntries() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("tmpfs for hidden files: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "size", "4k"); err != nil {
		return -1, fmt.Errorf("tmpfs for hidden files: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("tmpfs for hidden files: %w", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("tmpfs for hidden files: %w", err)
	}
	f, err := unix.Openat(mnt, "file", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		err = unix.Fchmod(f, 0)
		unix.Close(f)
	}
	if err == nil {
		if err = unix.Mkdirat(mnt, "dir", 0); err == nil {
			err = unix.Fchmodat(mnt, "dir", 0, 0)
		}
	}
	if err != nil {
		unix.Close(mnt)
		return -1, fmt.Errorf("tmpfs for hidden files: %w", err)
	}
	return mnt, nil
}

// attachReadOnly binds src of the mount at mnt over target, read-only.
func attachReadOnly(mnt int, src, target string) error {
	tree, err := unix.OpenTree(mnt, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return err
	}
	return unix.MoveMount(tree, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
}
