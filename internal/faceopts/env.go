package faceopts

import (
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/gitmarker"
)

// InGitRepo reports whether dir is inside a git work tree (a .git of a repository in dir or
// an ancestor; an empty .git, the sandbox's placeholder, does not count, as for git).
func InGitRepo(dir string) bool {
	for ; ; dir = filepath.Dir(dir) {
		if gitmarker.Exists(os.Stat, dir, ".git") {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}
