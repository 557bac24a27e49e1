package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// addVersionFlags gives the root command Codex's -V/--version, keeping cobra's -v that
// gocodex has always had as a hidden alias.
func addVersionFlags(root *cobra.Command, fac *faceopts.Factory) {
	s := fac.IO
	root.Flags().BoolP("version", "V", false, "print version")
	var lower bool
	root.Flags().BoolVarP(&lower, "version-lowercase", "v", false, "alias of --version")
	_ = root.Flags().MarkHidden("version-lowercase")
	run := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if lower {
			fmt.Fprintln(s.Out, cmd.Version)
			return nil
		}
		return run(cmd, args)
	}
}
