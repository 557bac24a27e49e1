package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// A protected name that does not exist yet (.git, .codex, .agents, .aws in a writable root)
// needs something on the host to bind read-only over: a mount point has to be an existing
// directory entry, and every other way to keep the name from being created fails (Landlock
// rules and seccomp see no names; an overlay or a tmpfs over the root would keep the
// command's other writes from reaching the host). So the helper creates an empty directory
// there, the placeholder, and the rules below keep it safe when several sandboxes share a root
// and when any of them is killed:
//
//   - A placeholder is an empty directory without write bits (mkdir with mode 0555: the umask
//     can only take bits away, so it is recognisable from the moment it exists). A user's own
//     directory of that name has write bits or content and is never removed.
//   - Every sandbox that binds a placeholder holds a shared flock on it for as long as its
//     mount namespace lives (the helper's descriptor, closed by the kernel however the helper
//     ends), and only binds it once it holds the lock and has checked that the locked directory
//     is still the one at that path.
//   - Whoever removes one (the helper when its command ends, gocodex when the helper has gone,
//     whatever killed it; the next sandbox in that root reuses one whose owners all died)
//     first takes the flock exclusively without waiting: a sandbox still using it keeps it, and
//     the last one out removes it. Removing a directory that is a mount point in another
//     namespace detaches that namespace's mount, which is why no one else may.

// heldName is a protected name bound read-only in the view, with the shared lock on its
// placeholder when it is one.
type heldName struct {
	path string
	// lockFD holds the shared flock on the placeholder; -1 for an entry that is not one.
	lockFD int
}

// holdPlaceholder makes sure an absent protected name has a placeholder and returns a
// descriptor of it holding the shared lock. held is false (and err nil) when the name exists
// as something else (the user's own .git), which the caller binds as it is, and when no
// placeholder can be made because the root is read-only or gone, in which case the command
// cannot create the name either.
func holdPlaceholder(path string) (fd int, held bool, err error) {
	for attempt := 0; attempt < 100; attempt++ {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case errors.Is(err, unix.ENOENT):
			switch err := unix.Mkdir(path, 0o555); {
			case err == nil, errors.Is(err, unix.EEXIST):
				continue // open what is there now, ours or a concurrent sandbox's
			case errors.Is(err, unix.EROFS), errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT):
				return -1, false, nil
			default:
				return -1, false, fmt.Errorf("placeholder for %s: %w", path, err)
			}
		case errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP), errors.Is(err, unix.EACCES):
			return -1, false, nil // a file, a symlink, or a directory of someone else's
		case err != nil:
			return -1, false, fmt.Errorf("open %s: %w", path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, false, fmt.Errorf("stat %s: %w", path, err)
		}
		if !isPlaceholderMode(st.Mode) {
			unix.Close(fd)
			return -1, false, nil
		}
		if err := flockRetry(fd, unix.LOCK_SH); err != nil {
			unix.Close(fd)
			return -1, false, fmt.Errorf("lock %s: %w", path, err)
		}
		// Someone may have removed it between the open and the lock (it was unused then).
		if stillAt(fd, path) {
			return fd, true, nil
		}
		unix.Close(fd)
	}
	return -1, false, fmt.Errorf("placeholder for %s: it keeps being replaced", path)
}

// reclaimPlaceholder removes the placeholder at path when no sandbox holds it; anything else
// at path (a user's .git, a placeholder someone filled) stays. Safe to call from anywhere, at
// any time, as often as wanted.
func reclaimPlaceholder(path string) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !isPlaceholderMode(st.Mode) {
		return
	}
	if flockRetry(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // in use by a running sandbox: the last one out removes it
	}
	if stillAt(fd, path) {
		_ = unix.Rmdir(path) // ENOTEMPTY: filled from outside meanwhile, so not ours to remove
	}
}

// isPlaceholderMode reports whether a directory's mode is a placeholder's: no write bit.
func isPlaceholderMode(mode uint32) bool {
	return mode&unix.S_IFMT == unix.S_IFDIR && mode&0o222 == 0
}

// stillAt reports whether the directory open at fd is still linked at path.
func stillAt(fd int, path string) bool {
	var held, now unix.Stat_t
	if unix.Fstat(fd, &held) != nil || held.Nlink == 0 {
		return false
	}
	return unix.Lstat(path, &now) == nil && now.Dev == held.Dev && now.Ino == held.Ino
}

func flockRetry(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// releaseNames undoes protectNames once the command and everything it started have ended:
// it unmounts the binds (a mount point cannot be removed in its own namespace), drops the
// locks and removes the placeholders no other sandbox holds.
func releaseNames(held []heldName) {
	for _, h := range held {
		_ = unix.Unmount(h.path, unix.MNT_DETACH)
		if h.lockFD >= 0 {
			unix.Close(h.lockFD)
		}
	}
	for _, h := range held {
		if h.lockFD >= 0 {
			reclaimPlaceholder(h.path)
		}
	}
}

// reclaimRoots removes the unused placeholders of the writable roots: gocodex calls it when a
// helper has ended, so that one killed before it could clean up (the end of a
// turn kills a background command's whole process group) leaves nothing behind.
func reclaimRoots(roots []WritableRoot) {
	for _, r := range roots {
		for _, p := range r.ReadOnlySubpaths {
			reclaimPlaceholder(p)
		}
	}
}
