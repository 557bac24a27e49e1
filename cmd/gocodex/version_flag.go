package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/version"
)

// addVersionFlags gives the root command Codex's -V/--version, keeping cobra's -v that
// gocodex has always had as a hidden alias. They are answered here, not by cobra's version
// template: executing any text/template makes the linker keep every exported method of
// every type the binary can reach (3.1 MB of the binary, TestBinarySize).
func addVersionFlags(root *cobra.Command, fac *faceopts.Factory) {
	s := fac.IO
	var upper, lower bool
	root.Flags().BoolVarP(&upper, "version", "V", false, "print version")
	root.Flags().BoolVarP(&lower, "version-lowercase", "v", false, "alias of --version")
	_ = root.Flags().MarkHidden("version-lowercase")
	run := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if upper || lower {
			fmt.Fprintln(s.Out, version.Full())
			return nil
		}
		return run(cmd, args)
	}
}
