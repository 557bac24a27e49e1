package main

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/iostreams"
)

func TestNoAltScreenFlag(t *testing.T) {
	var got tuiOptions
	root := &cobra.Command{Use: "gocodex", SilenceUsage: true, SilenceErrors: true}
	addTUIFlags(root, streams{}, func(_ context.Context, o tuiOptions, _ *iostreams.IOStreams) error { got = o; return nil })
	root.SetArgs([]string{"--no-alt-screen"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.NoAltScreen {
		t.Error("--no-alt-screen was not read")
	}
}

// [tui] alternate_screen, as Codex spells it: only "always" (or true) leaves inline mode.
func TestWantsAltScreen(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  bool
	}{{nil, false}, {"always", true}, {"never", false}, {"auto", false}, {true, true}, {false, false}} {
		cfg := &config.Config{Effective: map[string]any{}}
		if tc.value != nil {
			cfg.Effective["tui"] = map[string]any{"alternate_screen": tc.value}
		}
		if got := wantsAltScreen(cfg); got != tc.want {
			t.Errorf("alternate_screen = %v: %v, want %v", tc.value, got, tc.want)
		}
	}
}
