package patch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ApplyError is a patch that parsed but could not be applied. Message is Codex's exact text.
type ApplyError struct {
	Message string
	Err     error
}

func (e *ApplyError) Error() string { return e.Message }
func (e *ApplyError) Unwrap() error { return e.Err }

// errNoFilesMessage is the failure for a patch with no hunks.
const errNoFilesMessage = "No files were modified."

// Affected lists the paths a patch touched, as spelled in the patch (a moved file is listed
// under its destination).
type Affected struct {
	Added, Modified, Deleted []string
}

// Summary is the success text the apply_patch command prints.
func (a Affected) Summary() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, p := range a.Added {
		fmt.Fprintf(&b, "A %s\n", p)
	}
	for _, p := range a.Modified {
		fmt.Fprintf(&b, "M %s\n", p)
	}
	for _, p := range a.Deleted {
		fmt.Fprintf(&b, "D %s\n", p)
	}
	return b.String()
}

// Apply applies the hunks of p one after another, relative to cwd. It stops at the first
// failing hunk and, like Codex, leaves the earlier hunks applied: there is no rollback. Any
// returned error is an *ApplyError whose Message is the text to show.
func Apply(cwd string, p *Patch) (Affected, error) {
	var a Affected
	if len(p.Hunks) == 0 {
		return a, &ApplyError{Message: errNoFilesMessage}
	}
	for _, h := range p.Hunks {
		abs := resolve(cwd, h.Path)
		switch h.Kind {
		case AddFile:
			if err := writeFile(abs, h.Contents); err != nil {
				return a, err
			}
			a.Added = append(a.Added, h.Path)
		case DeleteFile:
			if err := deleteFile(abs); err != nil {
				return a, err
			}
			a.Deleted = append(a.Deleted, h.Path)
		case UpdateFile:
			original, err := readForUpdate(abs)
			if err != nil {
				return a, err
			}
			updated, err := updatedContents(original, abs, h.Chunks)
			if err != nil {
				return a, err
			}
			if h.MovePath == "" {
				if err := writeFile(abs, updated); err != nil {
					return a, err
				}
				a.Modified = append(a.Modified, h.Path)
				continue
			}
			if err := writeFile(resolve(cwd, h.MovePath), updated); err != nil {
				return a, err
			}
			if err := os.Remove(abs); err != nil {
				return a, &ApplyError{Message: fmt.Sprintf("Failed to remove original %s", abs), Err: err}
			}
			a.Modified = append(a.Modified, h.MovePath)
		}
	}
	return a, nil
}

// writeFile creates the parent directories and writes (or overwrites) abs.
func writeFile(abs, contents string) error {
	// Codex reports a parent that cannot be created (say, it is a file) as a failed write.
	err := os.MkdirAll(filepath.Dir(abs), 0o755)
	if err == nil {
		err = overwrite(abs, contents)
	}
	if err != nil {
		return &ApplyError{Message: fmt.Sprintf("Failed to write file %s", abs), Err: err}
	}
	return nil
}

// overwrite writes contents over abs in place (same inode, mode and links) and then cuts
// the file to length. Truncating to zero first, as os.WriteFile does, makes ext4 flush the
// old data to disk on close (its replace-via-truncate heuristic): ~100 ms on a large file.
func overwrite(abs, contents string) error {
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(contents)
	if err == nil {
		err = f.Truncate(int64(len(contents)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// deleteFile removes a file; a directory is refused rather than removed.
func deleteFile(abs string) error {
	fail := func(err error) error {
		return &ApplyError{Message: fmt.Sprintf("Failed to delete file %s", abs), Err: err}
	}
	info, err := os.Lstat(abs)
	if err != nil {
		return fail(err)
	}
	if info.IsDir() {
		return fail(fmt.Errorf("path is a directory"))
	}
	if err := os.Remove(abs); err != nil {
		return fail(err)
	}
	return nil
}
