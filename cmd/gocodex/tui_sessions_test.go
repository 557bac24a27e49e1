package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

func TestNoAltScreenFlag(t *testing.T) {
	var got tuiOptions
	root := &cobra.Command{Use: "gocodex", SilenceUsage: true, SilenceErrors: true}
	addTUIFlags(root, testFactory(""), func(_ context.Context, o tuiOptions, _ *faceopts.Factory) error { got = o; return nil })
	root.SetArgs([]string{"--no-alt-screen"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.NoAltScreen {
		t.Error("--no-alt-screen was not read")
	}
}
