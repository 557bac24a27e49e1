package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// /mcp verbose lists each tool with its description; /mcp login NAME signs in to an
// OAuth-protected server (the browser is $BROWSER, a fake that follows the redirect) and
// the tokens land in .credentials.json; an unknown server gets Codex's answer.
func TestTUITmuxMcpVerboseAndLogin(t *testing.T) {
	e, srv := oauthWorld(t)
	e.addMcpConfig(fmt.Sprintf("[mcp_servers.local]\ncommand = %q\n\n[mcp_servers.linear]\nurl = %q\n", mcpTestServer(t), srv.URL()))
	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("/mcp verbose")
	u.waitFor("• local", "• echo: Echoes the text back.", "• add: Adds two numbers.", "Resource templates:")
	u.typeLine("/mcp login nosuch")
	u.waitFor("No MCP server named 'nosuch' found.")
	u.typeLine("/mcp login linear")
	u.waitFor("Authorize `linear` by opening this URL in your browser:", "Successfully logged in to MCP server 'linear'.")
	u.quit()
	creds := storedCredentials(t, e.CodexHome)
	found := false
	for k, v := range creds {
		found = found || strings.HasPrefix(k, "linear|") && v["access_token"] != ""
	}
	if !found {
		t.Errorf("no stored credentials for linear: %v", creds)
	}
	if n := len(e.Model.Requests()); n != 0 {
		t.Errorf("%d model requests: /mcp went to the model", n)
	}
}
