package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneConfigLoad keeps the configuration loaded once per process path: config.Load is
// called only by internal/faceopts (every face's start-up); per-thread overrides are loaded
// by the faces' host through the loader function they are given.
func TestOneConfigLoad(t *testing.T) {
	var callers []string
	forEachGoFile(t, map[string]bool{"examples": true}, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Load" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "config" {
					callers = append(callers, fset.Position(call.Pos()).String())
				}
			}
			return true
		})
	})
	for _, c := range callers {
		if !strings.Contains(filepath.ToSlash(c), "internal/faceopts/") {
			t.Errorf("config.Load called outside internal/faceopts: %s", c)
		}
	}
	if len(callers) != 1 {
		t.Errorf("config.Load has %d callers, want the one in internal/faceopts: %v", len(callers), callers)
	}
}

// forEachGoFile parses every non-test Go file of the repository, but those under a directory
// named in skip (and node_modules, testdata and hidden directories), and hands it to visit.
func forEachGoFile(t *testing.T, skip map[string]bool, visit func(*token.FileSet, *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (skip[d.Name()] || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
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
		visit(fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOneHostBuilder keeps the host built in one place: app.New is called (or handed on as a
// value) only by the factory in internal/faceopts, which builds the process's one host on
// first use, and faceopts.Load, the start-up load, is called only there too. A face or
// command asks the factory; it never builds a host or loads its start-up configuration
// itself. (The per-thread loads of app-server and mcp-server read config.Load through their
// Options.LoadConfig and build no host.)
func TestOneHostBuilder(t *testing.T) {
	uses := map[string][]string{}
	forEachGoFile(t, map[string]bool{"examples": true}, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := id.Name + "." + sel.Sel.Name
			if name == "app.New" || name == "faceopts.Load" {
				uses[name] = append(uses[name], fset.Position(sel.Pos()).String())
			}
			return true
		})
	})
	// Inside internal/faceopts the loader is called unqualified: count those calls as well.
	forEachGoFile(t, map[string]bool{"examples": true}, func(fset *token.FileSet, f *ast.File) {
		pos := filepath.ToSlash(fset.Position(f.Pos()).String())
		if f.Name.Name != "faceopts" || !strings.Contains(pos, "internal/faceopts/") {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "Load" {
					uses["faceopts.Load"] = append(uses["faceopts.Load"], fset.Position(call.Pos()).String())
				}
			}
			return true
		})
	})
	for name, want := range map[string]int{"app.New": 1, "faceopts.Load": 1} {
		for _, u := range uses[name] {
			if !strings.Contains(filepath.ToSlash(u), "internal/faceopts/factory.go") {
				t.Errorf("%s used outside the factory (internal/faceopts/factory.go): %s", name, u)
			}
		}
		if len(uses[name]) != want {
			t.Errorf("%s has %d uses, want %d (the factory's): %v", name, len(uses[name]), want, uses[name])
		}
	}
}

// TestCommandOnlyWires keeps cmd/gocodex a wiring of cobra commands: they parse flags and hand
// the factory to a face; cmd/gocodex never imports the host nor does a face's host work
// itself (starting threads, the TUI's screens and sessions), which once took ~500 lines there.
func TestCommandOnlyWires(t *testing.T) {
	hostWork := map[string]bool{
		"StartThread": true, "RewindFiles": true, "CustomCommands": true,
		"tui.Run": true, "tui.Options": true, "tui.SignIn": true, "tui.AskTrust": true, "tui.Session": true,
	}
	forEachGoFile(t, map[string]bool{"examples": true}, func(fset *token.FileSet, f *ast.File) {
		pos := filepath.ToSlash(fset.Position(f.Pos()).String())
		if !strings.Contains(pos, "cmd/gocodex/") {
			return
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"`+module+`/internal/app"` {
				t.Errorf("%s imports the host (internal/app): a command asks the factory and hands it to a face", pos)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			name := sel.Sel.Name
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "tui" {
				name = "tui." + name
			}
			if hostWork[name] {
				t.Errorf("%s: cmd/gocodex does a face's host work (%s); move it into the face", fset.Position(sel.Pos()), name)
			}
			return true
		})
	})
}

// TestOneIOStreamsType keeps one type for where a command reads and writes: a struct that
// carries a process's stderr (an ErrOut io.Writer field) is iostreams.IOStreams, so every face
// and command detects terminals and colour the same way (four such types once grew apart).
func TestOneIOStreamsType(t *testing.T) {
	forEachGoFile(t, map[string]bool{"examples": true}, func(fset *token.FileSet, f *ast.File) {
		pos := filepath.ToSlash(fset.Position(f.Pos()).String())
		if strings.Contains(pos, "internal/iostreams/") {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				for _, name := range field.Names {
					if name.Name == "ErrOut" {
						t.Errorf("%s: a struct with its own ErrOut; use *iostreams.IOStreams", fset.Position(name.Pos()))
					}
				}
			}
			return true
		})
	})
}
