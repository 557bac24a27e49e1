package appserver

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// fs/watch and fs/unwatch: a connection asks to hear fs/changed when a file, or the entries
// of a folder (not deeper, as Codex 0.169 watches), change. On Linux a watch is an inotify
// watch (v2_fs_watch_linux.go); elsewhere, and for a path that does not exist yet, it polls.
// A watch lives as long as it is wanted and never longer than the connection.

const (
	fsWatchInterval = 200 * time.Millisecond
	// maxFSWatches bounds the polling one connection can ask for.
	maxFSWatches = 64
)

type fsWatchesKey struct{}

// fsWatches are one connection's watches by id; each entry stops its poller.
type fsWatches struct {
	mu   sync.Mutex
	stop map[string]context.CancelFunc
}

func connWatches(c *Conn) *fsWatches {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, _ := c.values[fsWatchesKey{}].(*fsWatches)
	if w == nil {
		w = &fsWatches{stop: map[string]context.CancelFunc{}}
		c.values[fsWatchesKey{}] = w
	}
	return w
}

// fileState is what a poll compares: a folder's entries are compared by name and kind
// (a change inside a sub-folder is not the watched folder's), a file by size and time.
type fileState struct {
	exists bool
	dir    bool
	size   int64
	mod    time.Time
}

func statPath(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil {
		return fileState{}
	}
	if fi.IsDir() {
		return fileState{exists: true, dir: true}
	}
	return fileState{exists: true, size: fi.Size(), mod: fi.ModTime()}
}

// watchSnapshot is the state of path and, for a folder, of each entry.
func watchSnapshot(path string) map[string]fileState {
	out := map[string]fileState{path: statPath(path)}
	if !out[path].dir {
		return out
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return out
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		out[p] = statPath(p)
	}
	return out
}

// changedPaths lists what differs between two snapshots, the watched folder itself left out
// when only its entries changed.
func changedPaths(root string, before, after map[string]fileState) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	if len(out) > 1 && after[root].dir && before[root].dir {
		kept := out[:0]
		for _, p := range out {
			if p != root {
				kept = append(kept, p)
			}
		}
		out = kept
	}
	sort.Strings(out)
	return out
}

// FsWatch answers fs/watch.
func (a *api) FsWatch(ctx context.Context, c *Conn, p FsWatchParams) (FsWatchResponse, error) {
	if !filepath.IsAbs(string(p.Path)) {
		return FsWatchResponse{}, errNotAbsolute()
	}
	path := filepath.Clean(string(p.Path))
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	w := connWatches(c)
	w.mu.Lock()
	if old, ok := w.stop[p.WatchID]; ok {
		old()
	} else if len(w.stop) >= maxFSWatches {
		w.mu.Unlock()
		return FsWatchResponse{}, InvalidRequest("too many filesystem watches on this connection (at most 64); fs/unwatch some first")
	}
	pollCtx, cancel := context.WithCancel(c.Context())
	w.stop[p.WatchID] = cancel
	w.mu.Unlock()
	before := watchSnapshot(path)
	c.Go(beginWatch(pollCtx, c, p.WatchID, path, before))
	return FsWatchResponse{Path: pathString(path)}, nil
}

// FsUnwatch answers fs/unwatch.
func (a *api) FsUnwatch(ctx context.Context, c *Conn, p FsUnwatchParams) (FsUnwatchResponse, error) {
	w := connWatches(c)
	w.mu.Lock()
	if stop, ok := w.stop[p.WatchID]; ok {
		stop()
		delete(w.stop, p.WatchID)
	}
	w.mu.Unlock()
	// As Codex: an unknown id is no error.
	return FsUnwatchResponse{}, nil
}

// pollPath sends fs/changed each time path (or a folder's entries) changed since the last
// poll, until ctx ends.
func pollPath(ctx context.Context, c *Conn, id, path string, before map[string]fileState) {
	t := time.NewTicker(fsWatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		after := watchSnapshot(path)
		if changed := changedPaths(path, before, after); len(changed) > 0 {
			if err := c.Notify(ctx, "fs/changed", FsChangedNotification{WatchID: id, ChangedPaths: changedAbs(changed)}); err != nil {
				return
			}
		}
		before = after
	}
}

// changedAbs types the changed paths as the notification does.
func changedAbs(paths []string) []pathString {
	out := make([]pathString, len(paths))
	for i, p := range paths {
		out[i] = pathString(p)
	}
	return out
}
