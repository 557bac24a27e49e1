package appserver

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The app-server is a face, not a second host: commands run through the host (internal/guard,
// the one place where sandbox and approvals meet) and the state files are the host
// extensions' (internal/host/...), so none of its files starts a process, builds a sandbox
// or locks a file itself.
func TestAppServerLeavesHostWorkToTheHost(t *testing.T) {
	banned := map[string]string{
		"github.com/gocodex/gocodex/internal/process":  "command/exec runs through the host (app.OneOffCommands)",
		"github.com/gocodex/gocodex/internal/sandbox":  "command/exec runs through the host (app.OneOffCommands)",
		"github.com/gocodex/gocodex/internal/filelock": "the thread and read state files are the host extensions'",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := banned[path]; bad {
				t.Errorf("%s imports %s: %s", name, path, why)
			}
		}
	}
}
