package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// view is what buildView changed that the helper must undo when the command ends.
type view struct {
	// names are the protected names bound read-only, placeholders among them (see
	// placeholder_linux.go).
	names []heldName
	// freshProc is false when a new /proc could not be mounted (a container that masks parts
	// of its /proc): the command then sees the outer /proc, read-only.
	freshProc bool
}

// The device nodes a confined command gets in its private /dev; everything else in the host's
// /dev (disks, other terminals, shared memory) is out of sight.
var viewDevices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// buildView runs inside the fresh user, mount and PID namespaces Command asked for and gives
// the command its view of the file system: everything read-only and nosuid (so no chmod,
// chown, utime, xattr or chattr outside the roots), the writable roots bound writable, the
// protected names inside them bound read-only (a placeholder is held for a name that does not
// exist yet, so it cannot be created either), gocodex's credential files hidden, a /proc of the new PID namespace with
// /proc/sys read-only, and a private /dev with the harmless devices, a new pty instance and its
// own /dev/shm.
func buildView(roots []WritableRoot, hidden []string) (view, error) {
	var v view
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return v, fmt.Errorf("make mounts private: %w", err)
	}
	// The device nodes are cloned before /dev is covered.
	devs, err := cloneDevices()
	defer func() {
		for _, fd := range devs {
			unix.Close(fd)
		}
	}()
	if err != nil {
		return v, err
	}
	for _, r := range roots {
		if err := bindSelf(r.Root); err != nil {
			return v, err
		}
	}
	if err := setAttr("/", unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID, 0, true); err != nil {
		return v, err
	}
	for _, r := range roots {
		// A root the outer namespace mounted read-only stays so: fewer writes, not more.
		if err := setReadOnly(r.Root, false); err != nil && !errors.Is(err, unix.EPERM) {
			return v, err
		}
	}
	if v.names, err = protectNames(roots); err != nil {
		return v, err
	}
	if err := hideCredentials(hidden); err != nil {
		return v, err
	}
	if v.freshProc, err = mountProc(); err != nil {
		return v, err
	}
	if err := mountDev(devs); err != nil {
		return v, err
	}
	return v, nil
}

// protectNames binds every protected subpath read-only, holding a placeholder for one that
// does not exist. It returns what it bound, for releaseNames.
func protectNames(roots []WritableRoot) ([]heldName, error) {
	var done []string
	var held []heldName
	for _, r := range roots {
		for _, p := range r.ReadOnlySubpaths {
			if slices.Contains(done, p) {
				continue
			}
			done = append(done, p)
			fd, isPlaceholder, err := holdPlaceholder(p)
			if err != nil {
				return held, err
			}
			if isPlaceholder {
				held = append(held, heldName{path: p, lockFD: fd})
				if err := bindReadOnlyAt(fd, p); err != nil {
					return held, err
				}
				continue
			}
			if _, err := os.Lstat(p); err != nil {
				continue // absent, and no placeholder can be made: the command cannot create it either
			}
			if err := bindSelf(p); err != nil {
				return held, err
			}
			held = append(held, heldName{path: p, lockFD: -1})
			if err := setReadOnly(p, true); err != nil {
				return held, err
			}
		}
	}
	return held, nil
}

// bindReadOnlyAt binds the directory open at fd read-only onto itself, through the descriptor
// so that it is the very directory that was locked and checked.
func bindReadOnlyAt(fd int, path string) error {
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	return nil
}

// mountProc mounts the new PID namespace's /proc over the outer one and keeps the parts that
// reach the host read-only. When the kernel refuses the mount (a container that masks parts
// of /proc allows no new one), the outer /proc stays, read-only like the rest of /.
func mountProc() (bool, error) {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		if errors.Is(err, unix.EPERM) {
			return false, nil
		}
		return false, fmt.Errorf("mount /proc: %w", err)
	}
	for _, p := range []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"} {
		if err := bindSelf(p); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return true, err
		}
		if err := setReadOnly(p, true); err != nil {
			return true, err
		}
	}
	return true, nil
}

// cloneDevices takes detached copies of the host's device nodes, to attach in the new /dev.
func cloneDevices() (map[string]int, error) {
	devs := map[string]int{}
	for _, name := range viewDevices {
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return devs, fmt.Errorf("clone /dev/%s: %w", name, err)
		}
		devs[name] = fd
	}
	return devs, nil
}

// mountDev covers /dev with a private tmpfs holding the cloned devices, a new devpts
// instance (only the terminals the sandbox opens itself) and its own shared-memory tmpfs,
// then makes the tmpfs read-only.
func mountDev(devs map[string]int) error {
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return fmt.Errorf("mount a private /dev: %w", err)
	}
	for _, name := range viewDevices {
		fd, ok := devs[name]
		if !ok {
			continue
		}
		target := "/dev/" + name
		if err := os.WriteFile(target, nil, 0o666); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
		if err := unix.MoveMount(fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("attach %s: %w", target, err)
		}
	}
	for _, dir := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount a private /dev/pts: %w", err)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mount a private /dev/shm: %w", err)
	}
	links := map[string]string{
		"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join("/dev", name)); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
	}
	return setAttr("/dev", unix.MOUNT_ATTR_RDONLY, 0, false)
}

// viewWritableDevices are the paths Landlock leaves writable inside the private /dev.
var viewWritableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/shm"}

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
	if ro {
		return setAttr(path, unix.MOUNT_ATTR_RDONLY, 0, true)
	}
	err := setAttr(path, 0, unix.MOUNT_ATTR_RDONLY, true)
	if err != nil && errors.Is(err, unix.EPERM) {
		err = setAttr(path, 0, unix.MOUNT_ATTR_RDONLY, false)
	}
	return err
}

func setAttr(path string, set, clear uint64, recursive bool) error {
	attr := unix.MountAttr{Attr_set: set, Attr_clr: clear}
	flags := 0
	if recursive {
		flags = unix.AT_RECURSIVE
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, path, uint(flags), &attr); err != nil {
		return fmt.Errorf("mount_setattr %s (set %#x, clear %#x): %w", path, set, clear, err)
	}
	return nil
}
