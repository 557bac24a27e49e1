package config

import (
	"strings"
	"testing"
)

// `[lsp.<id>]` tables decode into LspConfig; an unknown key in one is warned about with the
// closest known key; `lsp = false` turns the servers off.
func TestLspTables(t *testing.T) {
	f := newFixture(t)
	f.userConfig(`[lsp.gopls]
command = ["gopls", "serve"]
env = { GOFLAGS = "-tags=integration" }
init_options = { staticcheck = true }

[lsp.zls]
command = ["zls"]
extensions = [".zig"]
enabeld = false

[lsp.clangd]
enabled = false
`)
	c, warns := f.load(f.opts())
	if c.Lsp.Disabled {
		t.Error("lsp disabled")
	}
	g := c.Lsp.Servers["gopls"]
	if strings.Join(g.Command, " ") != "gopls serve" || g.Env["GOFLAGS"] != "-tags=integration" || g.InitOptions["staticcheck"] != true {
		t.Errorf("gopls: %+v", g)
	}
	if z := c.Lsp.Servers["zls"]; z.Extensions[0] != ".zig" || z.Enabled != nil {
		t.Errorf("zls: %+v", z)
	}
	if e := c.Lsp.Servers["clangd"].Enabled; e == nil || *e {
		t.Errorf("clangd enabled: %v", e)
	}
	if len(warns) != 1 || strings.Join(warns[0].Key, ".") != "lsp.zls.enabeld" || !strings.HasSuffix(warns[0].Message, "did you mean `enabled`?") {
		t.Errorf("warnings: %v", warns)
	}
}

func TestLspFalse(t *testing.T) {
	f := newFixture(t)
	f.userConfig("lsp = false\n")
	c, warns := f.load(f.opts())
	if !c.Lsp.Disabled || len(warns) != 0 {
		t.Errorf("lsp = false: %+v, warnings %v", c.Lsp, warns)
	}
	f.userConfig("lsp = \"off\"\n")
	if _, _, err := Load(f.opts()); err == nil || !strings.Contains(err.Error(), "`lsp` must be a boolean or a table") {
		t.Errorf("lsp = \"off\": %v", err)
	}
}
