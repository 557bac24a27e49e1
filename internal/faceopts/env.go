package faceopts

import (
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"

	"github.com/gocodex/gocodex/internal/gitmarker"
)

// IsTerminal reports whether r (an *os.File) is a terminal.
func IsTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(f.Fd())
}

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
