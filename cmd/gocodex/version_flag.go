package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// addVersionFlags gives the root command Codex's -V/--version, keeping cobra's -v that
// gocodex has always had as a hidden alias.
func addVersionFlags(root *cobra.Command, s streams) {
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
