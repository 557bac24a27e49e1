package snapshot

import (
	"context"
	"os"
)

const (
	storeGit   = "git"
	storeFiles = "files"
)

// entryKind is what a path holds in a snapshot.
type entryKind uint8

const (
	kindNone entryKind = iota // absent
	kindFile
	kindSymlink
)

// entry is one path's state in a snapshot. Two entries are equal when the path holds the
// same bytes with the same mode.
type entry struct {
	Kind entryKind
	// Perm is the permission bits: exact in the files store, 0644 or 0755 in git (which
	// keeps only the executable bit).
	Perm os.FileMode
	// ID names the content in the store (a blob id, or a sha-256).
	ID string
}

func (e entry) exists() bool { return e.Kind != kindNone }

// delta is one path that differs between two snapshots.
type delta struct {
	Path     string // slash-separated, relative to the root
	Old, New entry
}

// store holds snapshots of one root.
type store interface {
	// snapshot records the tree as it is now and returns its id.
	snapshot(ctx context.Context) (string, error)
	// diff lists the paths that differ from snapshot a to snapshot b, by path.
	diff(ctx context.Context, a, b string) (map[string]delta, error)
	// read returns the bytes of each entry (a symlink's are its target).
	read(ctx context.Context, entries map[string]entry) (map[string][]byte, error)
	// pin keeps snapshot id alive under name; unpin lets the names go.
	pin(ctx context.Context, name, id string) error
	unpin(ctx context.Context, names []string) error
	// release drops what no longer backs the ids in keep (after a rewind).
	release(ctx context.Context, keep []string) error
	// exactPerm reports whether Perm holds all permission bits (else only the x bit counts).
	exactPerm() bool
}
