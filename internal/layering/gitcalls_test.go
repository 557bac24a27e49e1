package layering

import (
	"go/ast"
	"go/token"
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
	skip := map[string]bool{"examples": true, "bench": true, "third_party": true, "testkit": true, "safegit": true}
	forEachGoFile(t, skip, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && startsGit(call) {
				t.Errorf("%s starts git directly: run it through internal/safegit (add the subcommand to its vetted table)", fset.Position(call.Pos()))
			}
			return true
		})
	})
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
