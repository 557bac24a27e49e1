package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/features"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// newFeaturesCommand is `gocodex features list|enable|disable`, as `codex features`: list
// prints every flag with its stage and effective value; enable/disable write
// `[features] NAME = true|false` to $CODEX_HOME/config.toml.
func newFeaturesCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var flags faceopts.Flags
	cmd := &cobra.Command{
		Use:   "features",
		Short: "Inspect feature flags",
		Args:  cobra.NoArgs,
	}
	flags.Register(cmd.PersistentFlags(), faceopts.Config|faceopts.Features|faceopts.Profile)
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List known features with their stage and effective state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, warnings, err := loadConfig(fac, &flags)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
			}
			return features.WriteList(s.Out, cfg.Features)
		},
	})
	for _, on := range []bool{true, false} {
		verb := map[bool]string{true: "enable", false: "disable"}[on]
		cmd.AddCommand(&cobra.Command{
			Use:   verb + " FEATURE",
			Short: strings.ToUpper(verb[:1]) + verb[1:] + " a feature in config.toml",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return setFeature(s, args[0], on)
			},
		})
	}
	return cmd
}

func setFeature(s *iostreams.IOStreams, name string, on bool) error {
	if _, err := features.CheckFeature(name); err != nil {
		return err
	}
	home, err := config.CodexHome(os.Getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	path := config.UserConfigPath(home)
	if err := config.SetValue(path, []string{"features", name}, on); err != nil {
		return err
	}
	verb := map[bool]string{true: "Enabled", false: "Disabled"}[on]
	fmt.Fprintf(s.Out, "%s feature `%s` in config.toml.\n", verb, name)
	if honest, note := features.Effective(name, on); !honest {
		fmt.Fprintf(s.ErrOut, "warning: feature `%s` is %s: it has no effect\n", name, note)
	}
	return nil
}
