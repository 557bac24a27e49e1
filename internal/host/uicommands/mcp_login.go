package uicommands

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/mcp/oauth"
)

// McpLoginOptions are the sign-in's choices beyond the server's config.
type McpLoginOptions struct {
	// Scopes, when set, replace the server's configured scopes.
	Scopes                 []string
	ClientID, ClientSecret string
	// Out receives the authorize address; OpenBrowser, when set, is handed it.
	Out         io.Writer
	OpenBrowser func(url string) error
	// Timeout bounds the wait for the browser's callback; 0 is the sign-in's default.
	Timeout time.Duration
}

// McpOAuthStore is the MCP OAuth credentials store the configuration names. A keyring
// that is named but not there is said before any sign-in starts.
func McpOAuthStore(cfg *config.Config) (oauth.Store, error) {
	return oauth.UsableStoreFor(cfg.CodexHome, cfg.McpOAuthCredentialsStore)
}

// McpLogin signs in to the configured MCP server name with OAuth (`mcp login`, the TUI's
// /mcp login, the app-server's mcpServer/oauth/login) and stores its tokens.
func McpLogin(ctx context.Context, cfg *config.Config, name string, o McpLoginOptions) error {
	c, ok := cfg.McpServers[name]
	if !ok {
		return fmt.Errorf("No MCP server named '%s' found.", name)
	}
	if c.URL == "" {
		return fmt.Errorf("OAuth login is only supported for streamable HTTP servers; `%s` runs a command", name)
	}
	store, err := McpOAuthStore(cfg)
	if err != nil {
		return err
	}
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = c.Scopes
	}
	creds, err := oauth.Login(ctx, oauth.LoginOptions{
		Name: name, URL: c.URL, Headers: c.HTTPHeaders, Scopes: scopes, Resource: c.OAuthResource,
		ClientID: o.ClientID, ClientSecret: o.ClientSecret,
		CallbackPort: cfg.McpOAuthCallbackPort, Out: o.Out, OpenBrowser: o.OpenBrowser, Timeout: o.Timeout,
	})
	if err != nil {
		return err
	}
	if err := store.Save(oauth.Key(name, c.URL, c.HTTPHeaders), *creds); err != nil {
		return fmt.Errorf("store the OAuth credentials of `%s`: %w", name, err)
	}
	return nil
}

// OpenBrowser opens a URL with $BROWSER, or the desktop's opener.
func OpenBrowser(getenv func(string) string) func(string) error {
	return func(url string) error {
		var cmd *exec.Cmd
		switch b := getenv("BROWSER"); {
		case b != "":
			cmd = exec.Command(b, url)
		case runtime.GOOS == "darwin":
			cmd = exec.Command("open", url)
		case runtime.GOOS == "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
		default:
			cmd = exec.Command("xdg-open", url)
		}
		cmd.Stdout, cmd.Stderr = nil, nil
		cmd.Env = os.Environ()
		if err := cmd.Start(); err != nil {
			return err
		}
		go func() { _ = cmd.Wait() }() // the browser may keep running; reaped when it ends
		return nil
	}
}
