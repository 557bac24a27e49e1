package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGitRunsOnlyThroughSafegit keeps every git process gocodex starts itself in
// internal/safegit, which neutralises the programs a repository can name (filters, diff
// drivers, hooks, fsmonitor...): a new call site cannot forget them. Test files and the test
// support build their fixtures with git directly; the bench and examples modules are not
// gocodex.
func TestGitRunsOnlyThroughSafegit(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	skipDirs := map[string]bool{"node_modules": true, "testdata": true, "examples": true, "bench": true, "third_party": true, "testkit": true, "safegit": true}
	var callers []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && startsGit(call) {
				callers = append(callers, fset.Position(call.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range callers {
		t.Errorf("%s starts git directly: run it through internal/safegit (add the subcommand to its vetted table)", c)
	}
}

// startsGit reports an exec.Command or exec.CommandContext call whose program is git.
func startsGit(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Command" && sel.Sel.Name != "CommandContext" {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "exec" {
		return false
	}
	for i, arg := range call.Args {
		if i > 1 {
			break
		}
		if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && (s == "git" || strings.HasSuffix(s, "/git")) {
				return true
			}
		}
	}
	return false
}
