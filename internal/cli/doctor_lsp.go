package cli

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/lsp"
)

// checkLanguageServers lists the language servers gocodex would use (internal/lsp): found,
// or missing, which is a warning only when the workspace has files the server serves.
func checkLanguageServers(c *DoctorCheck, cfg *config.Config) {
	c.ID, c.Category = "lsp.servers", "lsp"
	servers := lsp.Configured(cfg.Lsp)
	if len(servers) == 0 {
		c.set(StatusOK, "language servers turned off (lsp = false)", "")
		return
	}
	served := map[string]bool{}
	for _, f := range lsp.WorkspaceFiles(cfg.Cwd, servers, 2000) {
		for _, s := range servers {
			if s.Serves(f) {
				served[s.ID] = true
			}
		}
	}
	var found, needed []string
	var remedies []string
	for _, s := range servers {
		argv, ok := lsp.Locate(s, exec.LookPath)
		switch {
		case ok:
			found = append(found, s.ID)
			c.detail(s.ID, strings.Join(argv, " "))
		case served[s.ID]:
			needed = append(needed, s.ID)
			c.detail(s.ID, "not found in PATH (the workspace has files it serves)")
			if s.Install != "" {
				remedies = append(remedies, s.ID+": "+s.Install)
			}
		default:
			c.detail(s.ID, "not found in PATH")
		}
	}
	if len(needed) > 0 {
		c.set(StatusWarning, fmt.Sprintf("language server(s) missing for this workspace: %s", strings.Join(needed, ", ")),
			"Install them to get diagnostics after edits ("+strings.Join(remedies, "; ")+"), or set `lsp = false`.")
		return
	}
	if len(found) == 0 {
		c.set(StatusOK, "no language server found (edits get no diagnostics)", "")
		return
	}
	c.set(StatusOK, fmt.Sprintf("%d language server(s) found: %s", len(found), strings.Join(found, ", ")), "")
}
