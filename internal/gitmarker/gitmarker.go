// Package gitmarker tells a repository's .git from an empty directory of that name, the way
// git itself does: while a sandboxed command runs, the sandbox holds empty read-only .git
// placeholders in its writable roots (so the command cannot create one), and git, like the
// checks that use this package, walks past them.
package gitmarker

import (
	"io/fs"
	"path/filepath"
)

// StatFunc is os.Stat, os.Lstat or an fs.StatFS's Stat.
type StatFunc func(name string) (fs.FileInfo, error)

// Exists reports whether dir holds marker. A ".git" directory counts only when it has a
// HEAD; a ".git" file (a worktree's or submodule's gitdir link) always does.
func Exists(stat StatFunc, dir, marker string) bool {
	fi, err := stat(filepath.Join(dir, marker))
	if err != nil {
		return false
	}
	if marker != ".git" || !fi.IsDir() {
		return true
	}
	_, err = stat(filepath.Join(dir, marker, "HEAD"))
	return err == nil
}
