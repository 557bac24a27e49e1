package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
)

// loginOriginator is the originator Codex's login and logout send.
const loginOriginator = "codex_cli_rs"

// newLoginCommands are `gocodex login [status]` and `gocodex logout`, Codex's flags included
// (the hidden --experimental_issuer and --experimental_client-id too).
func newLoginCommands(fac *faceopts.Factory) []*cobra.Command {
	s, getenv := fac.IO, fac.Getenv
	var flags faceopts.Flags
	var o cli.LoginOptions
	loadCfg := func() (*config.Config, error) {
		lo, err := flags.LoadOptions(getenv, faceopts.FullAutoSandboxOnly)
		if err != nil {
			return nil, err
		}
		cfg, _, err := fac.Config(lo)
		return cfg, err
	}
	o.Getenv = getenv
	login := &cobra.Command{
		Use:   "login [--with-api-key | --device-auth]",
		Short: "Sign in with ChatGPT or an API key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadCfg()
			if err != nil {
				return err
			}
			if v := getenv("GOCODEX_LOGIN_PORT"); v != "" {
				if o.Port, err = strconv.Atoi(v); err != nil {
					return fmt.Errorf("GOCODEX_LOGIN_PORT=%q is not a port number", v)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			return exitWith(cli.RunLogin(ctx, cfg, o, s))
		},
	}
	flags.Register(login.PersistentFlags(), faceopts.Config|faceopts.Features)
	f := login.Flags()
	f.BoolVar(&o.WithAPIKey, "with-api-key", false, "read the API key from stdin (e.g. printenv OPENAI_API_KEY | gocodex login --with-api-key)")
	f.BoolVar(&o.WithAccessToken, "with-access-token", false, "read an agent identity access token from stdin (not supported)")
	f.BoolVar(&o.DeviceAuth, "device-auth", false, "sign in with a device code (for SSH and headless machines)")
	f.StringVar(&o.Issuer, "experimental_issuer", "", "EXPERIMENTAL: use a custom OAuth issuer base URL (advanced)")
	f.StringVar(&o.ClientID, "experimental_client-id", "", "EXPERIMENTAL: use a custom OAuth client id (advanced)")
	_ = f.MarkHidden("experimental_issuer")
	_ = f.MarkHidden("experimental_client-id")

	status := &cobra.Command{
		Use:   "status",
		Short: "Show login status",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := loadCfg()
			if err != nil {
				return err
			}
			return exitWith(cli.RunLoginStatus(cfg, s))
		},
	}
	login.AddCommand(status)

	var logoutFlags faceopts.Flags
	logout := &cobra.Command{
		Use:   "logout",
		Short: "Remove stored authentication credentials",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lo, err := logoutFlags.LoadOptions(getenv, faceopts.FullAutoSandboxOnly)
			if err != nil {
				return err
			}
			cfg, _, err := fac.Config(lo)
			if err != nil {
				return err
			}
			return exitWith(cli.RunLogout(context.WithoutCancel(cmd.Context()), cfg, loginOriginator, o, s))
		},
	}
	logoutFlags.Register(logout.Flags(), faceopts.Config|faceopts.Features)
	return []*cobra.Command{login, logout}
}
