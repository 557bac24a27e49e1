package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// addMcpCodexFlags gives `gocodex mcp` the rest of Codex's command line: --enable/--disable
// on every subcommand, and the OAuth parts (mcp login, mcp logout, add's --oauth-* flags),
// which gocodex lacks: it does no OAuth with MCP servers, so they say so and change nothing.
func addMcpCodexFlags(mcp, add *cobra.Command, opts *mcpOptions, fac *faceopts.Factory) {
	s := fac.IO
	pf := mcp.PersistentFlags()
	pf.StringArrayVar(&opts.Enable, "enable", nil, "enable a feature (features.NAME=true)")
	pf.StringArrayVar(&opts.Disable, "disable", nil, "disable a feature (features.NAME=false)")

	var oauth [4]string
	names := []string{"oauth-client-id", "oauth-client-secret", "oauth-client-registration", "oauth-resource"}
	for i, name := range names {
		add.Flags().StringVar(&oauth[i], name, "", "not supported by gocodex: MCP OAuth")
	}
	add.PreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, name := range names {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("gocodex does not support MCP OAuth: --%s is refused (use --bearer-token-env-var for a token you have)", name)
			}
		}
		return nil
	}
	for _, verb := range []string{"login", "logout"} {
		c := &cobra.Command{
			Use:   verb + " NAME",
			Short: "OAuth " + verb + " with an MCP server (not supported: gocodex does no MCP OAuth)",
			Args:  cobra.ExactArgs(1),
			RunE: func(_ *cobra.Command, args []string) error {
				fmt.Fprintf(s.ErrOut, "Error: `mcp %s` is not supported by gocodex: it does no OAuth with MCP servers. "+
					"Give %s a token with `gocodex mcp add %s --url URL --bearer-token-env-var VAR`.\n", verb, args[0], args[0])
				return exitWith(1)
			},
		}
		if verb == "login" { // Codex's login flags, parsed so the answer is the one above
			var noBrowser bool
			var scopes, registration string
			c.Flags().BoolVar(&noBrowser, "no-browser", false, "not supported by gocodex")
			c.Flags().StringVar(&scopes, "scopes", "", "not supported by gocodex")
			c.Flags().StringVar(&registration, "oauth-client-registration", "", "not supported by gocodex")
		}
		mcp.AddCommand(c)
	}
}
