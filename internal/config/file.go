package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/gocodex/gocodex/internal/atomicfile"
)

// EditFile applies edits to the config file at path and writes it back
// atomically (temporary file in the same directory, then rename), keeping
// the file's mode. A missing file is created (mode 0600, as Codex does for
// files that may hold tokens). A symlinked config.toml stays a symlink: the
// file it points to is replaced.
func EditFile(path string, edits ...Edit) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	src, err := os.ReadFile(target)
	mode := fs.FileMode(0o600)
	switch {
	case err == nil:
		if st, err := os.Stat(target); err == nil {
			mode = st.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		src = nil
	default:
		return fmt.Errorf("read config %s: %w", path, err)
	}
	var current map[string]any
	if err := toml.Unmarshal(src, &current); err != nil {
		// Never rewrite a file we cannot read back: say where it is broken.
		return fromTOMLError(path, err)
	}
	out, err := ApplyEdits(src, edits...)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFileAtomic(target, out, mode)
}

// SetValue writes one value (a table value replaces the whole table; nil
// removes the key) into the config file at path.
func SetValue(path string, keyPath []string, value any) error {
	return EditFile(path, Set(keyPath, value))
}

// SetTable writes value (a map or struct) as the `[keyPath]` section of the
// config file at path, replacing any previous table there.
func SetTable(path string, keyPath []string, value any) error {
	return EditFile(path, Set(keyPath, value))
}

// RemoveValue deletes a key or table from the config file at path.
func RemoveValue(path string, keyPath []string) error {
	return EditFile(path, Remove(keyPath))
}

// RemoveTable deletes a table, with its sub-tables, from the config file.
func RemoveTable(path string, keyPath []string) error {
	return EditFile(path, Remove(keyPath))
}

func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write config %s: %w", path, err)
	}
	if err := atomicfile.Write(path, data, mode); err != nil {
		return fmt.Errorf("write config %s: %w", path, err)
	}
	return nil
}
