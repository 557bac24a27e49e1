package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// mcpOptions are the flags of `gocodex mcp …`.
type mcpOptions struct {
	fac     *faceopts.Factory // loads the configuration
	Configs []string
	// Enable and Disable are --enable/--disable: features.NAME overrides, as in Codex.
	Enable  []string
	Disable []string
	JSON    bool
	// add
	Env               []string
	URL               string
	BearerTokenEnvVar string
	OAuth             mcpOAuthFlags
	// Getenv reads the environment (CODEX_HOME); tests pass their own.
	Getenv func(string) string
}

// newMcpCommand is `gocodex mcp list|get|add|remove`: manage the [mcp_servers] of
// config.toml. Edits keep the file's comments and layout.
func newMcpCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	opts := &mcpOptions{Getenv: fac.Getenv, fac: fac}
	cmd := &cobra.Command{Use: "mcp", Short: "Manage the MCP servers gocodex starts"}
	cmd.PersistentFlags().StringArrayVarP(&opts.Configs, "config", "c", nil, "override a configuration value (key=value)")

	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "List configured MCP servers",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runMcpList(cmd.Context(), opts, s) },
	}
	list.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")

	get := &cobra.Command{
		Use:   "get NAME [--json]",
		Short: "Show one MCP server",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return runMcpGet(opts, args[0], s) },
	}
	get.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")

	add := &cobra.Command{
		Use:   "add NAME [--env KEY=VALUE]... -- COMMAND [ARGS]... | add NAME --url URL [--bearer-token-env-var VAR]",
		Short: "Add (or replace) an MCP server in config.toml",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMcpAdd(cmd.Context(), opts, args[0], args[1:], s)
		},
	}
	add.Flags().StringArrayVar(&opts.Env, "env", nil, "environment variable for a stdio server (KEY=VALUE, repeatable)")
	add.Flags().StringVar(&opts.URL, "url", "", "URL of a streamable-HTTP server")
	add.Flags().StringVar(&opts.BearerTokenEnvVar, "bearer-token-env-var", "", "environment variable holding the bearer token")

	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from config.toml",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return runMcpRemove(opts, args[0], s) },
	}
	cmd.AddCommand(list, get, add, remove)
	addMcpCodexFlags(cmd, add, opts, fac)
	return cmd
}

func loadMcpServers(opts *mcpOptions) (map[string]config.McpServerConfig, error) {
	cfg, err := loadMcpConfig(opts)
	if err != nil {
		return nil, err
	}
	return cfg.McpServers, nil
}

func runMcpList(ctx context.Context, opts *mcpOptions, s *iostreams.IOStreams) error {
	cfg, err := loadMcpConfig(opts)
	if err != nil {
		return err
	}
	auth := mcpAuthStatuses(ctx, cfg)
	if opts.JSON {
		return cli.WriteMcpListJSON(s.Out, cfg.McpServers, auth)
	}
	return cli.WriteMcpList(s.Out, cfg.McpServers, auth)
}

func runMcpGet(opts *mcpOptions, name string, s *iostreams.IOStreams) error {
	servers, err := loadMcpServers(opts)
	if err != nil {
		return err
	}
	c, ok := servers[name]
	if !ok {
		return fmt.Errorf("No MCP server named '%s' found.", name)
	}
	if opts.JSON {
		return cli.WriteMcpGetJSON(s.Out, name, c)
	}
	return cli.WriteMcpGet(s.Out, name, c)
}

func configPath(opts *mcpOptions) (string, error) {
	home, err := config.CodexHome(opts.Getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "config.toml"), nil
}

func runMcpAdd(ctx context.Context, opts *mcpOptions, name string, command []string, s *iostreams.IOStreams) error {
	if err := cli.ValidateMcpServerName(name); err != nil {
		return err
	}
	var entry any
	switch {
	case opts.URL != "" && len(command) > 0:
		return fmt.Errorf("the argument '--url <URL>' cannot be used with '[COMMAND]...'")
	case opts.URL != "":
		if len(opts.Env) > 0 {
			return fmt.Errorf("the argument '--env <KEY=VALUE>' cannot be used with '--url <URL>'")
		}
		entry = cli.McpHTTPEntry{URL: opts.URL, BearerTokenEnvVar: opts.BearerTokenEnvVar, OAuthResource: opts.OAuth.Resource}
	case len(command) > 0:
		if o := opts.OAuth; o.ClientID != "" || o.ClientSecret != "" || o.Registration != "" || o.Resource != "" {
			return fmt.Errorf("the --oauth-* arguments require '--url <URL>'")
		}
		if opts.BearerTokenEnvVar != "" {
			return fmt.Errorf("the argument '--bearer-token-env-var <BEARER_TOKEN_ENV_VAR>' requires '--url <URL>'")
		}
		e := cli.McpStdioEntry{Command: command[0], Args: command[1:]}
		for _, kv := range opts.Env {
			k, v, err := cli.ParseEnvPair(kv)
			if err != nil {
				return err
			}
			if e.Env == nil {
				e.Env = map[string]string{}
			}
			e.Env[k] = v
		}
		entry = e
	default:
		return fmt.Errorf("the following required arguments were not provided:\n  <COMMAND|--url <URL>>")
	}
	path, err := configPath(opts)
	if err != nil {
		return err
	}
	if err := config.EditFile(path, config.Set([]string{"mcp_servers", name}, entry)); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Added global MCP server '%s'.\n", name)
	if opts.URL == "" {
		return nil
	}
	return mcpAddSignIn(ctx, opts, name, config.McpServerConfig{URL: opts.URL, BearerTokenEnvVar: opts.BearerTokenEnvVar}, s)
}

func runMcpRemove(opts *mcpOptions, name string, s *iostreams.IOStreams) error {
	if err := cli.ValidateMcpServerName(name); err != nil {
		return err
	}
	path, err := configPath(opts)
	if err != nil {
		return err
	}
	// Only the user's own file is edited, so only a server defined there can be removed.
	var file struct {
		McpServers map[string]any `toml:"mcp_servers"`
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	if err := toml.Unmarshal(src, &file); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := file.McpServers[name]; !ok {
		fmt.Fprintf(s.Out, "No MCP server named '%s' found.\n", name)
		return nil
	}
	if err := config.EditFile(path, config.Remove([]string{"mcp_servers", name})); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Removed global MCP server '%s'.\n", name)
	return nil
}
