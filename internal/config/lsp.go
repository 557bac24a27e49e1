package config

import (
	"fmt"
	"reflect"

	"github.com/pelletier/go-toml/v2"
)

// LspConfig is `lsp`: `lsp = false` turns the language servers off; `[lsp.<id>]` tables add,
// override or disable one (internal/lsp applies them to its built-ins).
type LspConfig struct {
	Disabled bool
	Servers  map[string]LspServerToml
}

// LspServerToml is one `[lsp.<id>]` table.
type LspServerToml struct {
	// Command is the server's argv (`["gopls", "serve"]`).
	Command []string `toml:"command"`
	// Extensions are the file endings it serves (".go" or "go").
	Extensions []string `toml:"extensions"`
	// Enabled = false drops the server; a nil pointer means not written.
	Enabled *bool `toml:"enabled"`
	// Env is added to the server's environment.
	Env map[string]string `toml:"env"`
	// InitOptions are the initialize request's initializationOptions.
	InitOptions map[string]any `toml:"init_options"`
}

var lspServerType = reflect.TypeOf(LspServerToml{})

// resolveLsp decodes `lsp`: a boolean, or a table of server tables.
func (l *loader) resolveLsp(c *Config) error {
	switch v := l.file.Lsp.(type) {
	case nil:
		return nil
	case bool:
		c.Lsp.Disabled = !v
		return nil
	case map[string]any:
		c.Lsp.Servers = map[string]LspServerToml{}
		for id, raw := range v {
			tbl, ok := raw.(map[string]any)
			if !ok {
				return l.attribute([]string{"lsp", id}, fmt.Sprintf("invalid type: `lsp.%s` must be a table", id))
			}
			var s LspServerToml
			b, err := toml.Marshal(pruneUnknown(lspServerType, tbl))
			if err == nil {
				err = toml.Unmarshal(b, &s)
			}
			if err != nil {
				return l.attribute([]string{"lsp", id}, fmt.Sprintf("invalid `lsp.%s`: %v", id, err))
			}
			c.Lsp.Servers[id] = s
		}
		return nil
	default:
		return l.attribute([]string{"lsp"}, "invalid type: `lsp` must be a boolean or a table of `[lsp.<id>]` servers")
	}
}

// checkLspKeys reports the unknown keys of the `[lsp.<id>]` tables.
func checkLspKeys(v any, path []string, out *[]keyFinding) {
	tbl, ok := v.(map[string]any)
	if !ok {
		return
	}
	for id, raw := range tbl {
		if sub, ok := raw.(map[string]any); ok {
			walkSchema(lspServerType, sub, appendPath(path, id), out)
		}
	}
}
