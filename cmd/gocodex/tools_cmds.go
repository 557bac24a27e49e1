package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/cli"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// newExecpolicyCommand is `gocodex execpolicy check --rules FILE -- CMD…`.
func newExecpolicyCommand(s streams) *cobra.Command {
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

// sandboxOptions are the flags of `gocodex sandbox linux`.
type sandboxOptions struct {
	FullAuto bool
	Configs  []string
	Explain  bool
}

// newSandboxCommand is `gocodex sandbox linux [--full-auto] [-c …] -- CMD…`: run anything
// under the configured policy, to see what the agent would see.
func newSandboxCommand(s streams) *cobra.Command {
	var opts sandboxOptions
	var direct sandboxDirectFlags
	explain := func(cmd *cobra.Command, args []string) error {
		sandbox.WriteExplanation(s.Out, sandbox.Probe(cmd.Context(), sandbox.Options{}))
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
				return runSandboxDirect(cmd.Context(), &direct, args, s)
			}
			return cmd.Help()
		},
	}
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "print which sandbox mechanisms are active on this machine")
	direct.register(cmd.Flags())
	linux := &cobra.Command{
		Use:     "linux [--full-auto] [-c key=value] -- COMMAND...",
		Aliases: []string{"landlock"},
		Short:   "Run a command under the Linux sandbox (namespaces, Landlock, seccomp)",
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Explain {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Explain {
				return explain(cmd, args)
			}
			return exitWith(runSandbox(cmd.Context(), opts, args, s))
		},
	}
	linux.Flags().BoolVar(&opts.FullAuto, "full-auto", false, "use the workspace-write policy")
	linux.Flags().StringArrayVarP(&opts.Configs, "config", "c", nil, "override a configuration value (key=value)")
	linux.Flags().BoolVar(&opts.Explain, "explain", false, "print which sandbox mechanisms are active on this machine")
	cmd.AddCommand(linux, newSandboxUninstallCommand(s))
	return cmd
}

func runSandbox(ctx context.Context, opts sandboxOptions, args []string, s streams) int {
	lo := config.LoadOptions{CLIOverrides: opts.Configs}
	if opts.FullAuto {
		mode := protocol.SandboxWorkspaceWrite
		lo.Overrides.SandboxMode = &mode
	}
	cfg, _, err := faceopts.Load(lo)
	if err != nil {
		fmt.Fprintln(s.ErrOut, "Error:", err)
		return 1
	}
	policy := cfg.SandboxPolicy
	if !opts.FullAuto && !faceopts.SandboxChosen(cfg) {
		policy = protocol.SandboxPolicy{Mode: protocol.SandboxReadOnly}
	}
	return cli.RunSandbox(ctx, cli.SandboxRun{
		Args: args, Policy: policy, Cwd: cfg.Cwd,
		Stdin: s.In, Stdout: s.Out, Stderr: s.ErrOut,
	})
}
