package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/host/uicommands"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/mcp/oauth"
)

// mcpOAuthFlags are `mcp add`'s and `mcp login`'s OAuth options, as Codex 0.171 names them.
type mcpOAuthFlags struct {
	ClientID, ClientSecret, Registration, Resource string
	Scopes                                         []string
	// NoBrowser only prints the sign-in address (mcp login --no-browser).
	NoBrowser bool
}

// addMcpCodexFlags gives `gocodex mcp` the rest of Codex's command line: --enable/--disable
// on every subcommand, `mcp login` and `mcp logout` (OAuth sign-in to streamable-HTTP
// servers), and add's --oauth-* flags.
func addMcpCodexFlags(mcp, add *cobra.Command, opts *mcpOptions, fac *faceopts.Factory) {
	s := fac.IO
	pf := mcp.PersistentFlags()
	pf.StringArrayVar(&opts.Enable, "enable", nil, "enable a feature (features.NAME=true)")
	pf.StringArrayVar(&opts.Disable, "disable", nil, "disable a feature (features.NAME=false)")

	f := add.Flags()
	f.StringVar(&opts.OAuth.ClientID, "oauth-client-id", "", "OAuth client id registered beforehand with the server's authorization server")
	f.StringVar(&opts.OAuth.ClientSecret, "oauth-client-secret", "", "the secret of that client")
	f.StringVar(&opts.OAuth.Registration, "oauth-client-registration", "", "how the client registers for the sign-in: auto or dcr (cimd is not supported)")
	f.StringVar(&opts.OAuth.Resource, "oauth-resource", "", "OAuth resource to name in the sign-in (written as oauth_resource)")

	login := &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to an MCP server with OAuth",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMcpLogin(cmd.Context(), opts, args[0], s, false)
		},
	}
	login.Flags().StringSliceVar(&opts.OAuth.Scopes, "scopes", nil, "comma-separated OAuth scopes to request")
	login.Flags().StringVar(&opts.OAuth.Registration, "oauth-client-registration", "", "how the client registers: auto or dcr (cimd is not supported)")
	login.Flags().BoolVar(&opts.OAuth.NoBrowser, "no-browser", false, "print the sign-in address without opening a browser")
	logout := &cobra.Command{
		Use:   "logout NAME",
		Short: "Remove the OAuth credentials of an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return runMcpLogout(opts, args[0], s) },
	}
	mcp.AddCommand(login, logout)
}

// mcpOAuthStore is the credentials store the configuration names. A keyring that is named
// but not there is said before any sign-in starts, not after the person has signed in.
func mcpOAuthStore(cfg *config.Config) (oauth.Store, error) {
	return uicommands.McpOAuthStore(cfg)
}

func loadMcpConfig(opts *mcpOptions) (*config.Config, error) {
	cfg, _, err := opts.fac.Config(config.LoadOptions{CLIOverrides: faceopts.FeatureOverrides(opts.Configs, opts.Enable, opts.Disable), Env: opts.Getenv})
	return cfg, err
}

// runMcpLogin signs in to the configured server NAME and stores its tokens. fromAdd is `mcp
// add`'s immediate sign-in, which words its success as Codex does there.
func runMcpLogin(ctx context.Context, opts *mcpOptions, name string, s *iostreams.IOStreams, fromAdd bool) error {
	if reg := opts.OAuth.Registration; reg != "" && reg != "auto" && reg != "dcr" {
		if reg == "cimd" {
			return errors.New("gocodex does not support client ID metadata documents (--oauth-client-registration cimd): use auto or dcr")
		}
		return fmt.Errorf("invalid value '%s' for '--oauth-client-registration': possible values are auto, cimd, dcr", reg)
	}
	cfg, err := loadMcpConfig(opts)
	if err != nil {
		return err
	}
	browser := uicommands.OpenBrowser(opts.Getenv)
	if opts.OAuth.NoBrowser {
		browser = nil
	}
	if err := uicommands.McpLogin(ctx, cfg, name, uicommands.McpLoginOptions{Scopes: opts.OAuth.Scopes,
		ClientID: opts.OAuth.ClientID, ClientSecret: opts.OAuth.ClientSecret, Out: s.Out, OpenBrowser: browser}); err != nil {
		return err
	}
	if fromAdd {
		fmt.Fprintln(s.Out, "Successfully logged in.")
	} else {
		fmt.Fprintf(s.Out, "Successfully logged in to MCP server '%s'.\n", name)
	}
	return nil
}

func runMcpLogout(opts *mcpOptions, name string, s *iostreams.IOStreams) error {
	cfg, err := loadMcpConfig(opts)
	if err != nil {
		return err
	}
	c, ok := cfg.McpServers[name]
	if !ok {
		return fmt.Errorf("No MCP server named '%s' found.", name)
	}
	store, err := mcpOAuthStore(cfg)
	if err != nil {
		return err
	}
	found, err := store.Delete(oauth.Key(name, c.URL, c.HTTPHeaders))
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(s.Out, "No OAuth credentials stored for '%s'.\n", name)
		return nil
	}
	fmt.Fprintf(s.Out, "Removed OAuth credentials for '%s'.\n", name)
	return nil
}

// mcpAddSignIn is `mcp add --url`'s follow-up, as Codex's: a server that asks for OAuth is
// signed in to at once; one that cannot be reached gets a hint.
func mcpAddSignIn(ctx context.Context, opts *mcpOptions, name string, c config.McpServerConfig, s *iostreams.IOStreams) error {
	if c.BearerTokenEnvVar != "" {
		return nil
	}
	switch mcpServerAsksForOAuth(ctx, c) {
	case oauthAsked:
		fmt.Fprintln(s.Out, "Detected OAuth support. Starting OAuth flow…")
		return runMcpLogin(ctx, opts, name, s, true)
	case oauthUnknown:
		fmt.Fprintf(s.Out, "MCP server may or may not require login. Run `gocodex mcp login %s` to login.\n", name)
	}
	return nil
}

type oauthProbe int

const (
	oauthNotAsked oauthProbe = iota
	oauthAsked
	oauthUnknown // unreachable
)

// mcpServerAsksForOAuth sends the server an unauthenticated request (oauth.Probe): a 401
// with a Bearer challenge means OAuth.
func mcpServerAsksForOAuth(ctx context.Context, c config.McpServerConfig) oauthProbe {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, resp, err := oauth.Probe(ctx, http.DefaultClient, c.URL, c.HTTPHeaders)
	switch {
	case err == nil:
		resp.Body.Close()
		if strings.Contains(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "bearer") {
			return oauthAsked
		}
		return oauthNotAsked
	case errors.Is(err, oauth.ErrNoOAuth):
		return oauthNotAsked
	}
	return oauthUnknown
}

// mcpAuthStatuses are `mcp list`'s statuses of the HTTP servers gocodex can tell about: signed
// in (o_auth), or asking for a sign-in that has not happened (not_logged_in).
func mcpAuthStatuses(ctx context.Context, cfg *config.Config) map[string]string {
	out := map[string]string{}
	store := oauth.StoreFor(cfg.CodexHome, cfg.McpOAuthCredentialsStore)
	for name, c := range cfg.McpServers {
		if c.URL == "" || c.BearerTokenEnvVar != "" {
			continue
		}
		if creds, err := store.Load(oauth.Key(name, c.URL, c.HTTPHeaders)); err == nil && creds != nil {
			out[name] = "o_auth"
			continue
		}
		if c.IsEnabled() && mcpServerAsksForOAuth(ctx, c) == oauthAsked {
			out[name] = "not_logged_in"
		}
	}
	return out
}
