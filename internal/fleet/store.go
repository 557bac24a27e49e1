package fleet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Store is where a run's files live, --out: a folder on a shared file system or an
// S3-compatible bucket. Keys are slash-separated and relative to --out
// ("<run-id>/.fleet/run.json", "<run-id>/<task-id>/status.json").
type Store interface {
	// Where names a key for people and for commands: a path, or s3://bucket/prefix/key.
	Where(key string) string
	// LocalPath is the key's path when the store is a folder; false for a bucket.
	LocalPath(key string) (string, bool)
	// Check fails, naming the store, when it cannot be read and written.
	Check(ctx context.Context) error
	// Read returns a file; an error wrapping fs.ErrNotExist when there is none.
	Read(key string) ([]byte, error)
	// Write replaces a file whole: a reader never sees half of it.
	Write(key string, data []byte) error
	// Remove removes a file; a missing one is no error.
	Remove(key string) error
	// RemoveAll removes every file under prefix/.
	RemoveAll(prefix string) error
	// List names the files directly under prefix/ (not in its subfolders).
	List(prefix string) ([]string, error)
}

// OpenStore reads --out: an s3:// URL or a folder (made absolute). It reaches nothing: a
// dry run needs neither the folder nor the bucket's credentials (Check does).
func OpenStore(out string) (Store, error) {
	switch {
	case out == "":
		return nil, errors.New("--out is required: the shared folder or s3:// bucket the tasks write their results to")
	case strings.HasPrefix(strings.ToLower(out), "s3:"):
		return openS3Store(out)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	return dirStore(abs), nil
}

// splitRunDir splits a run's folder as Run.Dir prints it (an element's --run-dir) into its
// store's --out and the run id.
func splitRunDir(dir string) (out, id string) {
	dir = strings.TrimRight(dir, "/")
	if strings.HasPrefix(dir, "s3://") {
		k := strings.LastIndex(dir, "/")
		if k < len("s3://") {
			return dir, ""
		}
		return dir[:k], dir[k+1:]
	}
	return filepath.Dir(dir), filepath.Base(dir)
}

// dirStore is a folder on a file system every node mounts at the same path.
type dirStore string

func (d dirStore) path(key string) string { return filepath.Join(string(d), filepath.FromSlash(key)) }

func (d dirStore) Where(key string) string { return d.path(key) }

func (d dirStore) LocalPath(key string) (string, bool) { return d.path(key), true }

// Check makes nothing (a refused run leaves no folder behind): the folder is made by the
// run's first file.
func (d dirStore) Check(context.Context) error {
	if st, err := os.Stat(string(d)); err == nil && !st.IsDir() {
		return fmt.Errorf("--out %s: not a folder", string(d))
	}
	return nil
}

func (d dirStore) Read(key string) ([]byte, error) { return os.ReadFile(d.path(key)) }

func (d dirStore) Write(key string, data []byte) error {
	p := d.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(p, data)
}

func (d dirStore) Remove(key string) error {
	if err := os.Remove(d.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (d dirStore) RemoveAll(prefix string) error { return os.RemoveAll(d.path(prefix)) }

func (d dirStore) List(prefix string) ([]string, error) {
	entries, err := os.ReadDir(d.path(prefix))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// key joins a run's key parts.
func key(parts ...string) string { return path.Join(parts...) }
