package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// newExecpolicyCommand is `gocodex execpolicy check --rules FILE -- CMD…`.
func newExecpolicyCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	cmd := &cobra.Command{Use: "execpolicy", Short: "Evaluate execpolicy rules"}
	check := &cobra.Command{
		Use:                "check --rules FILE [--pretty] -- COMMAND...",
		Short:              "Print which rules match a command, as JSON",
		DisableFlagParsing: true, // the checker parses its own flags, like Codex's
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(cli.RunExecpolicyCheck(args, s.Out, s.ErrOut))
		},
	}
	cmd.AddCommand(check)
	return cmd
}

// sandboxOptions are the flags of `gocodex sandbox linux|macos|windows`.
type sandboxOptions struct {
	FullAuto bool
	Configs  []string
	Explain  bool
}

// newSandboxCommand is `gocodex sandbox linux [--full-auto] [-c …] -- CMD…`: run anything
// under the configured policy, to see what the agent would see.
func newSandboxCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var opts sandboxOptions
	var direct sandboxDirectFlags
	explain := func(cmd *cobra.Command, args []string) error {
		probe := sandbox.Probe(cmd.Context(), sandbox.Options{})
		sandbox.WriteExplanation(s.Out, probe)
		cli.WriteProtections(s.Out, cli.AgentProtections(probe.Err == nil && probe.Mechanism != sandbox.MechanismNone, cli.GitVersion(cmd.Context())))
		return nil
	}
	cmd := &cobra.Command{
		Use:   "sandbox [--explain] [-c key=value]... [-- COMMAND...]",
		Short: "Run commands within the gocodex sandbox",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Explain:
				return explain(cmd, args)
			case len(args) > 0: // Codex's form: the command under the configured policy
				return runSandboxDirect(cmd.Context(), fac, &direct, args)
			}
			return cmd.Help()
		},
	}
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "print which sandbox mechanisms are active on this machine")
	direct.register(cmd.Flags())
	for _, p := range []struct {
		name, short string
		aliases     []string
	}{
		{"linux", "Run a command under the Linux sandbox (namespaces, Landlock, seccomp)", []string{"landlock"}},
		{"macos", "Run a command under the macOS sandbox (Seatbelt)", []string{"seatbelt"}},
		{"windows", "Run a command under the Windows sandbox (none yet: sandboxed policies are refused)", nil},
	} {
		cmd.AddCommand(newSandboxPlatformCommand(fac, &opts, explain, p.name, p.short, p.aliases))
	}
	cmd.AddCommand(newSandboxUninstallCommand(fac))
	return cmd
}

// newSandboxPlatformCommand is `gocodex sandbox linux|macos|windows [--full-auto] [-c …] --
// CMD…`, which runs only on its own system.
func newSandboxPlatformCommand(fac *faceopts.Factory, opts *sandboxOptions, explain func(*cobra.Command, []string) error, name, short string, aliases []string) *cobra.Command {
	sub := &cobra.Command{
		Use:     name + " [--full-auto] [-c key=value] -- COMMAND...",
		Aliases: aliases,
		Short:   short,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Explain {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cli.CheckSandboxPlatform(name, runtime.GOOS); err != nil {
				return err
			}
			if opts.Explain {
				return explain(cmd, args)
			}
			return exitWith(runSandbox(cmd.Context(), fac, "gocodex sandbox "+name, *opts, args))
		},
	}
	sub.Flags().BoolVar(&opts.FullAuto, "full-auto", false, "use the workspace-write policy")
	sub.Flags().StringArrayVarP(&opts.Configs, "config", "c", nil, "override a configuration value (key=value)")
	sub.Flags().BoolVar(&opts.Explain, "explain", false, "print which sandbox mechanisms are active on this machine")
	return sub
}

func runSandbox(ctx context.Context, fac *faceopts.Factory, name string, opts sandboxOptions, args []string) int {
	s := fac.IO
	lo := config.LoadOptions{CLIOverrides: opts.Configs}
	if opts.FullAuto {
		mode := protocol.SandboxWorkspaceWrite
		lo.Overrides.SandboxMode = &mode
	}
	cfg, _, err := fac.Config(lo)
	if err != nil {
		fmt.Fprintln(s.ErrOut, "Error:", err)
		return 1
	}
	policy := cfg.SandboxPolicy
	if !opts.FullAuto && !faceopts.SandboxChosen(cfg) {
		policy = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	}
	return cli.RunSandbox(ctx, cli.SandboxRun{
		Name: name, Args: args, Policy: policy, Cwd: cfg.Cwd,
		Stdin: s.In, Stdout: s.Out, Stderr: s.ErrOut,
	})
}
