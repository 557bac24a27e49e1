//go:build linux

package appserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux a watch is an inotify watch of the path itself (a folder: its entries, not
// deeper, as Codex 0.169's watcher), read through Go's poller so closing the file ends the
// read. A burst of events (create, write, close) is sent as one fs/changed. A path that does
// not exist (yet, or any more) is looked for every fsWatchInterval and watched once there.

// fsWatchSettle is how long a burst may last before its paths are sent together.
const fsWatchSettle = 50 * time.Millisecond

const inotifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// watchPath sends fs/changed for path until ctx ends. When the path itself goes away (a
// file replaced by a rename, as editors save) the watch is set up again once it is back.
// The first watch is set up before fs/watch answers, so no change after the answer is
// missed; the returned function relays its events.
func beginWatch(ctx context.Context, c *Conn, id, path string, before map[string]fileState) func() {
	f, err := inotifyFile(path)
	if err == nil {
		// Closed with the watch even if the connection ends before the relay runs.
		context.AfterFunc(ctx, func() { f.Close() })
	}
	return func() { watchPath(ctx, c, id, path, before, f, err) }
}

func watchPath(ctx context.Context, c *Conn, id, path string, before map[string]fileState, f *os.File, err error) {
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			f, err = inotifyFile(path)
		}
		if errors.Is(err, unix.ENOENT) {
			if !awaitPath(ctx, c, id, path) {
				return
			}
			continue
		}
		if err != nil { // no inotify here (or no more instances): poll instead
			pollPath(ctx, c, id, path, before)
			return
		}
		if !relayInotify(ctx, c, id, path, f) {
			return
		}
	}
}

// awaitPath waits for a missing path to appear and says so; false when ctx ended first.
func awaitPath(ctx context.Context, c *Conn, id, path string) bool {
	t := time.NewTicker(fsWatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if _, err := os.Lstat(path); err == nil {
			return c.Notify(ctx, "fs/changed", FsChangedNotification{WatchID: id, ChangedPaths: []pathString{pathString(path)}}) == nil
		}
	}
}

// relayInotify sends f's events as fs/changed, a burst at a time, until the watch ends: false
// when ctx ended or the client is gone, true when the watched path itself went away.
func relayInotify(ctx context.Context, c *Conn, id, path string, f *os.File) bool {
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	defer f.Close()
	events := make(chan string, 64)
	go func() { // ends when the watch is gone or the file closes (ctx's end closes it)
		defer close(events)
		buf := make([]byte, 64*1024)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			paths, gone := inotifyPaths(path, buf[:n])
			for _, p := range paths {
				select {
				case events <- p:
				case <-ctx.Done():
					return
				}
			}
			if gone {
				return
			}
		}
	}()
	for {
		p, ok := <-events
		if !ok {
			return ctx.Err() == nil
		}
		batch := map[string]bool{p: true}
		settle := time.NewTimer(fsWatchSettle)
	burst:
		for {
			select {
			case p, ok := <-events:
				if !ok {
					break burst
				}
				batch[p] = true
			case <-settle.C:
				break burst
			}
		}
		settle.Stop()
		changed := make([]string, 0, len(batch))
		for p := range batch {
			changed = append(changed, p)
		}
		sort.Strings(changed)
		if err := c.Notify(ctx, "fs/changed", FsChangedNotification{WatchID: id, ChangedPaths: changedAbs(changed)}); err != nil {
			return false
		}
	}
}

// inotifyFile watches path with a non-blocking inotify instance wrapped as a file.
func inotifyFile(path string) (*os.File, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := unix.InotifyAddWatch(fd, path, inotifyMask); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "inotify:"+path), nil
}

// inotifyPaths are the paths the events in buf name (the entry of the watched folder, or
// the watched path itself), and whether the watch is gone (the path deleted or moved).
func inotifyPaths(root string, buf []byte) (out []string, gone bool) {
	for len(buf) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			break
		}
		gone = gone || ev.Mask&unix.IN_IGNORED != 0
		if ev.Mask&(unix.IN_IGNORED|unix.IN_Q_OVERFLOW) == 0 {
			name := string(buf[unix.SizeofInotifyEvent:end])
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			if name == "" {
				out = append(out, root)
			} else {
				out = append(out, filepath.Join(root, name))
			}
		} else if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			out = append(out, root) // events were lost: say the whole path changed
		}
		buf = buf[end:]
	}
	return out, gone
}
