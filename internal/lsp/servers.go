// Package lsp runs the language servers of a session (gopls, typescript-language-server,
// pyright, rust-analyzer, clangd, or any configured in `[lsp.<id>]`) and reports the
// diagnostics they publish: after an edit, for the files it touched, and on demand for a path
// or the whole workspace. Servers start lazily, one per server and root, inside the sandbox of
// the turn that needs them, and end with the session. The JSON-RPC framing and the protocol
// types are go.lsp.dev/jsonrpc2 and go.lsp.dev/protocol.
package lsp

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
)

// Server is one language server the session may start.
type Server struct {
	// ID names it in config (`[lsp.<id>]`), warnings and `gocodex doctor`.
	ID string
	// Commands are the argvs to try, in order: the first whose program is found runs.
	// Built-ins may have several (basedpyright, then pyright); a configured command is one.
	Commands [][]string
	// Extensions are the file name endings the server serves (".go").
	Extensions []string
	// RootMarkers are the files whose nearest directory is the server's root (go.mod); the
	// session's cwd when none is found.
	RootMarkers []string
	// Env is added to the server's environment.
	Env map[string]string
	// InitOptions are sent as the initialize request's initializationOptions.
	InitOptions map[string]any
	// Install tells a person how to get a missing built-in.
	Install string
}

// Serves reports whether the server handles the file at path.
func (s Server) Serves(path string) bool {
	for _, ext := range s.Extensions {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// Builtins are the servers gocodex knows without configuration.
func Builtins() []Server {
	return []Server{
		{
			ID: "gopls", Commands: [][]string{{"gopls"}}, Extensions: []string{".go"},
			RootMarkers: []string{"go.work", "go.mod"},
			Install:     "go install golang.org/x/tools/gopls@latest",
		},
		{
			ID: "typescript", Commands: [][]string{{"typescript-language-server", "--stdio"}},
			Extensions:  []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
			Install:     "npm install -g typescript-language-server typescript",
		},
		{
			ID:          "pyright",
			Commands:    [][]string{{"basedpyright-langserver", "--stdio"}, {"pyright-langserver", "--stdio"}},
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"},
			Install:     "npm install -g pyright (or pip install basedpyright)",
		},
		{
			ID: "rust-analyzer", Commands: [][]string{{"rust-analyzer"}}, Extensions: []string{".rs"},
			RootMarkers: []string{"Cargo.toml"},
			Install:     "rustup component add rust-analyzer",
		},
		{
			ID: "clangd", Commands: [][]string{{"clangd"}},
			Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"},
			Install:     "install clangd from your system's LLVM packages (apt install clangd, brew install llvm)",
		},
	}
}

// Configured is the built-ins with the `[lsp.<id>]` tables of cfg applied: a table naming a
// built-in overrides the keys it sets, a new id adds a server (it needs `command` and
// `extensions`), `enabled = false` drops one. Nil when `lsp = false`.
func Configured(cfg config.LspConfig) []Server {
	if cfg.Disabled {
		return nil
	}
	byID := map[string]*Server{}
	var order []string
	for _, s := range Builtins() {
		byID[s.ID] = &s
		order = append(order, s.ID)
	}
	ids := make([]string, 0, len(cfg.Servers))
	for id := range cfg.Servers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := cfg.Servers[id]
		s, ok := byID[id]
		if !ok {
			s = &Server{ID: id}
			byID[id] = s
			order = append(order, id)
		}
		if len(o.Command) > 0 {
			s.Commands = [][]string{o.Command}
		}
		if o.Extensions != nil {
			s.Extensions = normalizeExtensions(o.Extensions)
		}
		if o.Env != nil {
			s.Env = o.Env
		}
		if o.InitOptions != nil {
			s.InitOptions = o.InitOptions
		}
		if o.Enabled != nil && !*o.Enabled {
			delete(byID, id)
		}
	}
	var out []Server
	for _, id := range order {
		if s, ok := byID[id]; ok && len(s.Commands) > 0 && len(s.Extensions) > 0 {
			out = append(out, *s)
		}
	}
	return out
}

// normalizeExtensions accepts "go" and ".go" alike.
func normalizeExtensions(exts []string) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, e)
	}
	return out
}

// languageID is the LSP language identifier of a file, from its extension.
func languageID(path string) string {
	switch ext := filepath.Ext(path); ext {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return "cpp"
	default:
		return strings.TrimPrefix(ext, ".")
	}
}

// rootOf is the directory of the nearest root marker above path, or fallback.
func rootOf(s Server, path, fallback string, exists func(string) bool) string {
	dir := filepath.Dir(path)
	for {
		for _, m := range s.RootMarkers {
			if exists(filepath.Join(dir, m)) {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fallback
		}
		dir = parent
	}
}
