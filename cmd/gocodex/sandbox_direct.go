package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/protocol"
)

// sandboxDirectFlags are the flags of Codex 0.169's `codex sandbox [OPTIONS] -- COMMAND…`,
// which runs the command under the configured sandbox policy (read-only when none is
// chosen), as `gocodex sandbox linux` does. Its permission profiles and opaque sandbox
// state are Codex app-server internals gocodex lacks: those flags are refused.
type sandboxDirectFlags struct {
	faceopts.Flags
	PermissionProfile    string
	IncludeManagedConfig bool
	StateJSON            string
	StateReadableRoots   []string
	StateNoNetwork       bool
}

func (o *sandboxDirectFlags) register(f *pflag.FlagSet) {
	o.Flags.Register(f, faceopts.Config|faceopts.Features|faceopts.Profile|faceopts.Cd)
	f.StringVarP(&o.PermissionProfile, "permission-profile", "P", "", "not supported by gocodex: named permissions profile")
	f.BoolVar(&o.IncludeManagedConfig, "include-managed-config", false, "not supported by gocodex: managed requirements for --permission-profile")
	f.StringVar(&o.StateJSON, "sandbox-state-json", "", "not supported by gocodex: Codex's opaque sandbox state")
	f.StringArrayVar(&o.StateReadableRoots, "sandbox-state-readable-root", nil, "not supported by gocodex: a readable root for --sandbox-state-json")
	f.BoolVar(&o.StateNoNetwork, "sandbox-state-disable-network", false, "not supported by gocodex: network off in --sandbox-state-json")
}

func (o *sandboxDirectFlags) refuse() error {
	switch {
	case o.PermissionProfile != "" || o.IncludeManagedConfig:
		return fmt.Errorf("gocodex does not support permission profiles in `sandbox`; choose the policy with -c sandbox_mode=… (read-only, workspace-write)")
	case o.StateJSON != "" || len(o.StateReadableRoots) > 0 || o.StateNoNetwork:
		return fmt.Errorf("gocodex does not support Codex's sandbox state (--sandbox-state-*); choose the policy with -c sandbox_mode=…")
	}
	return nil
}

// runSandboxDirect runs args under the policy the configuration (with the flags) gives.
func runSandboxDirect(ctx context.Context, fac *faceopts.Factory, o *sandboxDirectFlags, args []string) error {
	s := fac.IO
	if err := o.refuse(); err != nil {
		return err
	}
	cfg, _, err := loadConfig(fac, &o.Flags)
	if err != nil {
		return err
	}
	policy := cfg.SandboxPolicy
	if !faceopts.SandboxChosen(cfg) {
		policy = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	}
	return exitWith(cli.RunSandbox(ctx, cli.SandboxRun{
		Args: args, Policy: policy, Cwd: cfg.Cwd,
		Stdin: s.In, Stdout: s.Out, Stderr: s.ErrOut,
	}))
}

// newSandboxUninstallCommand is Codex's `sandbox uninstall`, which removes the legacy
// Windows sandbox's accounts and rules: gocodex never installs any.
func newSandboxUninstallCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var ignored faceopts.Flags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the legacy Windows sandbox (not supported: gocodex installs none)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(s.ErrOut, "Error: `sandbox uninstall` is not supported by gocodex: it removes Codex's legacy Windows sandbox, and gocodex installs no machine-wide sandbox to remove.")
			return exitWith(1)
		},
	}
	ignored.Register(cmd.Flags(), faceopts.Config|faceopts.Features) // Codex's flags; the answer is the same
	return cmd
}
